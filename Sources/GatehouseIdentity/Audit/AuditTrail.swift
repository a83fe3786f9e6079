import Foundation
import GatehouseStore

/// Appends audit entries. An audit write that fails is reported to `onFailure` (logged and counted by
/// the server) but never fails the user's request: the action already happened.
public struct AuditTrail: Sendable {
    let store: any AuditLogStore
    let clock: IdentityClock
    let onFailure: @Sendable (any Error) -> Void
    /// Sees every entry as it is recorded (the server logs failures with their reason).
    let observe: (@Sendable (AuditEventType, _ userId: String?, ClientContext, _ details: [String: String]) -> Void)?
    /// Announces audited account changes to the product (webhooks; back-channel logout on disable and delete).
    let events: OutboundEvents?

    public init(store: any AuditLogStore, clock: IdentityClock = .system,
                onFailure: @escaping @Sendable (any Error) -> Void = { _ in },
                observe: (@Sendable (AuditEventType, _ userId: String?, ClientContext, _ details: [String: String]) -> Void)? = nil,
                events: OutboundEvents? = nil) {
        self.store = store; self.clock = clock; self.onFailure = onFailure; self.observe = observe; self.events = events
    }

    public func record(_ type: AuditEventType, userId: String?, context: ClientContext, details: [String: String] = [:]) async {
        observe?(type, userId, context, details)
        do { _ = try await store.append(event(type, userId: userId, context: context, details: details)) } catch { onFailure(error) }
        await events?.audited(type, userId: userId, details: details)
    }

    /// One entry of a bulk record.
    public struct Entry: Sendable {
        public var type: AuditEventType
        public var userId: String?
        public var details: [String: String]

        public init(_ type: AuditEventType, userId: String?, details: [String: String] = [:]) {
            self.type = type; self.userId = userId; self.details = details
        }
    }

    /// Records `entries` as ``record(_:userId:context:details:)`` records each, but in one write of the store:
    /// an import's thousands of entries, each appended alone, were a write (and on PostgreSQL a commit) apiece.
    public func recordAll(_ entries: [Entry], context: ClientContext) async {
        var detailsJSON: [[String: String]: String] = [:]  // an import's entries share their details
        var appended: [AuditEvent] = []
        appended.reserveCapacity(entries.count)
        for entry in entries {
            observe?(entry.type, entry.userId, context, entry.details)
            let json = detailsJSON[entry.details] ?? Self.json(entry.details)
            detailsJSON[entry.details] = json
            appended.append(AuditEvent(occurredAt: clock.now(), userId: entry.userId, type: entry.type.rawValue, ip: context.ip,
                                       userAgent: context.userAgent, details: json))
        }
        do { try await store.appendAll(appended) } catch { onFailure(error) }
        guard let events else { return }
        for entry in entries { await events.audited(entry.type, userId: entry.userId, details: entry.details) }
    }

    private func event(_ type: AuditEventType, userId: String?, context: ClientContext, details: [String: String]) -> AuditEvent {
        AuditEvent(occurredAt: clock.now(), userId: userId, type: type.rawValue, ip: context.ip, userAgent: context.userAgent,
                   details: Self.json(details))
    }

    private static func json(_ details: [String: String]) -> String {
        guard !details.isEmpty else { return "{}" }
        let data = (try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
