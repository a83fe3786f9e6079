import Synchronization

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

    /// A random per-process prefix plus a counter, 24 hex digits: unique across processes and
    /// restarts, and no system call per request. Request ids correlate logs; they are not secrets.
    static func generate() -> String {
        let sequence = counter.add(1, ordering: .relaxed).newValue
        return processPrefix + hex(sequence, digits: 16)
    }

    private static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        return hex(UInt64(generator.next() as UInt32), digits: 8)
    }()

    private static let counter = Atomic<UInt64>(0)

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
