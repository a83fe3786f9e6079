import GatehouseNetwork
import Synchronization

/// Gives every request an id: the `X-Request-Id` a trusted proxy sent when it is short and plain (so the
/// proxy's id carries through), a fresh random one otherwise. The id is echoed back and appears in every log line.
public struct RequestIDMiddleware: Middleware {
    /// Whose `X-Request-Id` is taken; nil takes anyone's (a server only reachable through its proxy).
    let trusted: ClientAddressResolver?

    /// - Parameter trustedProxies: take an incoming id only from these peers (put this middleware
    ///   before `ClientAddressMiddleware`, which replaces the peer address with the client's).
    public init(trustedProxies: ClientAddressResolver? = nil) { trusted = trustedProxies }

    public func prepare(_ request: inout Request) throws(HTTPError) {
        if let incoming = request.headers["X-Request-Id"], Self.isAcceptable(incoming), fromTrustedPeer(request) {
            request.requestID = incoming
        } else {
            request.requestID = Self.generate()
        }
    }

    public func finish(_ request: Request, _ response: inout Response) {
        response.headers.set("X-Request-Id", request.requestID)
    }

    /// A client could otherwise choose ids that collide with others' in the logs.
    private func fromTrustedPeer(_ request: Request) -> Bool {
        guard let trusted else { return true }
        guard let peer = request.remoteAddress.flatMap(IPAddress.init) else { return false }
        return trusted.isTrusted(peer)
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
        // Written in place: formatting with `String(_:radix:)` and padding cost several allocations.
        return String(unsafeUninitializedCapacity: 24) { buffer in
            writeHex(UInt64(processPrefix), digits: 8, into: buffer, at: 0)
            writeHex(sequence, digits: 16, into: buffer, at: 8)
            return 24
        }
    }

    private static let processPrefix: UInt32 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next() as UInt32
    }()

    private static func writeHex(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var value = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: value & 0xF)
            buffer[index] = nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10
            value >>= 4
        }
    }

    private static let counter = Atomic<UInt64>(0)

}
