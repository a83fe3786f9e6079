import GatehouseHTTP

/// Structured event log: one JSON object per line on stdout, beside the access log, each with an
/// RFC 3339 UTC timestamp (milliseconds) and a level; lines below the configured level are dropped.
/// Callers pass only values that are safe to keep (never secrets, tokens or passwords).
public struct ServerLog: Sendable {
    public typealias Sink = @Sendable (String) -> Void

    /// `log.level` / `GATEHOUSE_LOG_LEVEL`: the least severe level written.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        case debug, info, warn, error

        private var rank: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    let sink: Sink
    public let level: Level

    public init(sink: @escaping Sink = AccessLogMiddleware.standardOutput, level: Level = .info) {
        self.sink = sink; self.level = level
    }

    public func debug(_ message: String, _ fields: [(String, String)] = []) { write(.debug, message, fields) }
    public func info(_ message: String, _ fields: [(String, String)] = []) { write(.info, message, fields) }
    public func warn(_ message: String, _ fields: [(String, String)] = []) { write(.warn, message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { write(.error, message, fields) }

    private func write(_ severity: Level, _ message: String, _ fields: [(String, String)]) {
        guard severity >= level else { return }
        var line = "{\"time\":\"" + LogTimestamp.now() + "\",\"level\":\"\(severity.rawValue)\",\"msg\":"
        JSONText.appendString(message, to: &line)
        for (key, value) in fields {
            line += ","
            JSONText.appendString(key, to: &line)
            line += ":"
            JSONText.appendString(value, to: &line)
        }
        line += "}\n"
        sink(line)
    }
}
