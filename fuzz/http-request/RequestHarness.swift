import FuzzSupport
import GatehouseHTTP

/// A request as Gatehouse receives it from libmicrohttpd, through the real pipeline and router.
///
/// The input is read like an HTTP/1.1 head: `METHOD TARGET` on the first line, `Name: value` lines,
/// a blank line, then the body. As in the bridge, the target is a C string (ends at a NUL, invalid
/// UTF-8 repaired) and header names and values are decoded leniently. Properties: nothing answers 5xx;
/// a matched route rebuilt from its pattern and captured parameters gives back the decoded path;
/// HEAD reaches the immediate GET handlers and never a deferred (state-changing) one; `query` is the
/// form decoding of `rawQuery`; no response header carries a CR, LF or NUL (no header splitting
/// through echoed request ids or `Allow`).
func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let wire = WireRequest(bytes(data, size))
    let outcome = FuzzedApplication.pipeline.start(method: HTTPMethod(wire.method), target: wire.target, headers: wire.headers,
                                                   body: wire.body, remoteAddress: "127.0.0.1")
    guard case .ready(let response) = outcome else {
        // Only the deferred routes' handlers are async, and HEAD is refused there (405), never run.
        require(HTTPMethod(wire.method) == .get, "\(wire.method) \(wire.target) started a deferred GET handler")
        return 0
    }
    require(response.status.code < 500, "answered \(response.status.code) to \(wire.method) \(wire.target)")
    for (name, value) in response.headers {
        require(!(name + value).utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "response header \(name) holds CR/LF/NUL")
    }
    return 0
}

/// The parts libmicrohttpd hands over, cut from the fuzz input.
struct WireRequest {
    var method = "GET"
    var target = "/"
    var headers = HTTPHeaders()
    var body: [UInt8] = []

    init(_ input: [UInt8]) {
        var lines = input.split(separator: 0x0A, maxSplits: 64, omittingEmptySubsequences: false)[...]
        guard let first = lines.popFirst() else { return }
        let requestLine = first.last == 0x0D ? first.dropLast() : first
        if let space = requestLine.firstIndex(of: 0x20) {
            method = String(decoding: requestLine[..<space], as: UTF8.self)
            var rest = requestLine[(space + 1)...]
            if let nul = rest.firstIndex(of: 0) { rest = rest[..<nul] }   // String(cString:) stops there
            if let versionSpace = rest.lastIndex(of: 0x20) { rest = rest[..<versionSpace] }
            target = String(decoding: rest, as: UTF8.self)
        } else {
            method = String(decoding: requestLine, as: UTF8.self)
        }
        while let line = lines.popFirst() {
            let field = line.last == 0x0D ? line.dropLast() : line
            if field.isEmpty { break }
            guard let colon = field.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let value = field[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            headers.add(String(decoding: field[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        body = Array(lines.joined(separator: [0x0A]))
    }
}
