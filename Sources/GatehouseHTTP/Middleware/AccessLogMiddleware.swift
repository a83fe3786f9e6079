#if canImport(Glibc)
import Glibc
#endif

/// Writes one JSON line per request. It logs the matched route *pattern* (`/password/reset/{token}`), never
/// the request's own path — path segments carry secrets (reset and verification tokens) — nor a query
/// string, a body, a cookie or an `Authorization` header: codes, tokens and passwords travel there, and
/// logs are not a secret store. A request no route matched logs only its first segment.
public struct AccessLogMiddleware: Middleware {
    /// Where lines go; stdout by default. Tests capture lines through their own sink.
    public typealias Sink = @Sendable (String) -> Void

    let sink: Sink

    public init(sink: @escaping Sink = AccessLogMiddleware.standardOutput) { self.sink = sink }

    public func finish(_ request: Request, _ response: inout Response) {
        let elapsed = ContinuousClock.now - request.receivedAt
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        var line = "{\"time\":\"" + LogTimestamp.now() + "\",\"level\":\"info\",\"msg\":\"request\",\"request_id\":"
        JSONText.appendString(request.requestID, to: &line)
        line += ",\"method\":"
        JSONText.appendString(request.method.rawValue, to: &line)
        line += ",\"path\":"
        JSONText.appendString(Self.loggedPath(request), to: &line)
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

    /// What the `path` field shows: the route pattern when one matched, else the first path segment
    /// (`/password/…`), which names the area without anything a client put after it.
    public static func loggedPath(_ request: Request) -> String {
        // "(unmatched)" and "(invalid)" are markers, not patterns.
        if let route = request.route, !route.isEmpty, !route.hasPrefix("(") { return route }
        let segments = request.path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true)
        guard let first = segments.first else { return "/" }
        // A first segment can be a secret too when a client puts one there; keep it only when short and plain.
        let plain = first.utf8.count <= 32 && first.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f }
        let head = plain ? "/" + first : "/{unmatched}"
        return segments.count > 1 ? head + "/…" : head
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
