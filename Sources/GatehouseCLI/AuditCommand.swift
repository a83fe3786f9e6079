import Foundation
import GatehouseIdentity
import GatehouseNetwork
import GatehouseStore

/// `gatehouse audit`: the audit log filtered by account, event, client IP and time.
enum AuditCommand: CLICommand {
    static let name = "audit"
    static let summary = "Search the audit log (by account, event, IP, time)"
    static let options = ["--config": true, "--user": true, "--event": true, "--ip": true, "--since": true, "--until": true,
                          "--limit": true]
    static let help = """
        Usage: gatehouse audit [--user EMAIL] [--event TYPE]... [--ip ADDRESS] [--since TIME] [--until TIME] [--limit N]

        Prints matching audit entries, newest first, one per line: time, event, user id, IP, user agent,
        details (JSON: the failure reason, the provider…). Every filter is optional and they combine.

          --user EMAIL    one account (deleted accounts too, given the email they had)
          --event TYPE    an event type such as sign_in.failed; sign_in.* for every sign_in event;
                          repeat or separate with commas for several
          --ip ADDRESS    the client address (as resolved behind trusted proxies)
          --since TIME    from this time: ISO 8601 (2026-01-31T09:00:00Z) or an age (30m, 12h, 7d)
          --until TIME    before this time, same forms
          --limit N       at most N entries (default 100, at most 1000)

        Event types: \(AuditEventType.allCases.map(\.rawValue).joined(separator: ", ")).
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        var query = AuditQuery()
        if let limit = options.value("--limit") {
            guard let value = Int(limit), (1...1000).contains(value) else { throw UsageError(message: "--limit must be 1…1000") }
            query.limit = value
        }
        query.types = try eventTypes(options.all("--event"))
        if let ip = options.value("--ip") {
            guard let address = IPAddress(ip) else { throw UsageError(message: "--ip must be an IPv4 or IPv6 address, got \(ip)") }
            query.ip = address.description
        }
        let now = Date()
        if let since = options.value("--since") { query.since = try time(since, now: now, option: "--since") }
        if let until = options.value("--until") { query.until = try time(until, now: now, option: "--until") }
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        if let email = options.value("--user") { query.userId = try await context.user(email: email).id }
        let formatter = ISO8601DateFormatter()
        for record in try await context.database.auditLog.search(query) {
            let event = record.event
            print([formatter.string(from: event.occurredAt), event.type, event.userId ?? "-", event.ip ?? "-",
                   event.userAgent ?? "-", event.details].joined(separator: "\t"))
        }
        return ExitCode.success
    }

    /// Exact types as given; `prefix.*` expands to every known type with that prefix.
    static func eventTypes(_ values: [String]) throws -> [String] {
        var types: [String] = []
        for item in values.flatMap({ $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }) where !item.isEmpty {
            if item.hasSuffix("*") {
                let prefix = String(item.dropLast())
                let matches = AuditEventType.allCases.map(\.rawValue).filter { $0.hasPrefix(prefix) }
                guard !matches.isEmpty else { throw UsageError(message: "no event type starts with \(prefix)") }
                types += matches
            } else {
                guard item.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "." || $0 == "-" }) else {
                    throw UsageError(message: "--event \(item) is not an event type (see gatehouse audit --help)")
                }
                types.append(item)
            }
        }
        return types
    }

    /// ISO 8601, or an age before `now`: `90s`, `30m`, `12h`, `7d`.
    static func time(_ text: String, now: Date, option: String) throws -> Date {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0 {
            return now.addingTimeInterval(-amount * unit)
        }
        throw UsageError(message: "\(option) must be an ISO 8601 time (2026-01-31T09:00:00Z) or an age such as 30m, 12h, 7d; got \(text)")
    }
}
