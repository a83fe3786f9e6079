#if canImport(Glibc)
import Glibc
#endif

/// Writes one JSON line per request. It logs the path but never a query string, a body, a cookie or an
/// `Authorization` header: codes, tokens and passwords travel there, and logs are not a secret store.
public struct AccessLogMiddleware: Middleware {
    /// Where lines go; stdout by default. Tests capture lines through their own sink.
    public typealias Sink = @Sendable (String) -> Void

    let sink: Sink

    public init(sink: @escaping Sink = AccessLogMiddleware.standardOutput) { self.sink = sink }

    public func finish(_ request: Request, _ response: inout Response) {
        let elapsed = ContinuousClock.now - request.receivedAt
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        var line = "{\"level\":\"info\",\"msg\":\"request\",\"request_id\":"
        JSONText.appendString(request.requestID, to: &line)
        line += ",\"method\":"
        JSONText.appendString(request.method.rawValue, to: &line)
        line += ",\"path\":"
        JSONText.appendString(request.path, to: &line)
        line += ",\"route\":"
        JSONText.appendString(request.route ?? "", to: &line)
        line += ",\"status\":\(response.status.code),\"bytes\":\(response.body.count),\"duration_us\":\(micros)"
        if let remote = request.remoteAddress {
            line += ",\"remote\":"
            JSONText.appendString(remote, to: &line)
        }
        line += "}\n"
        sink(line)
    }

    /// One `write(2)` per line, so lines from concurrent threads never interleave.
    public static let standardOutput: Sink = { line in
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// Minimal JSON string escaping for log lines (no Foundation encoder on the hot path).
public enum JSONText {
    public static func appendString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
