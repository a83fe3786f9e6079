import GatehouseHTTP

/// Structured event log: one JSON object per line on stdout, beside the access log.
/// Callers pass only values that are safe to keep (never secrets, tokens or passwords).
public struct ServerLog: Sendable {
    public typealias Sink = @Sendable (String) -> Void
    let sink: Sink

    public init(sink: @escaping Sink = AccessLogMiddleware.standardOutput) { self.sink = sink }

    public func info(_ message: String, _ fields: [(String, String)] = []) { write("info", message, fields) }
    public func error(_ message: String, _ fields: [(String, String)] = []) { write("error", message, fields) }

    private func write(_ level: String, _ message: String, _ fields: [(String, String)]) {
        var line = "{\"level\":\"\(level)\",\"msg\":"
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
