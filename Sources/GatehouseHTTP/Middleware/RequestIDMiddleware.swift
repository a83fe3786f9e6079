/// Gives every request an id: the client's `X-Request-Id` when it is short and plain (so a proxy's id
/// carries through), a fresh random one otherwise. The id is echoed back and appears in every log line.
public struct RequestIDMiddleware: Middleware {
    public init() {}

    public func prepare(_ request: inout Request) throws(HTTPError) {
        if let incoming = request.headers["X-Request-Id"], Self.isAcceptable(incoming) {
            request.requestID = incoming
        } else {
            request.requestID = Self.generate()
        }
    }

    public func finish(_ request: Request, _ response: inout Response) {
        response.headers.set("X-Request-Id", request.requestID)
    }

    static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= 64 && bytes.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
    }

    /// 96 random bits as 24 hex digits: unique enough to correlate logs, not a secret.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let a = generator.next() as UInt64, b = generator.next() as UInt32
        return hex(a, digits: 16) + hex(UInt64(b), digits: 8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
