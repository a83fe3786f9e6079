import Foundation

/// The SHA-256 digest of a secret (session id, one-time token, OAuth `state`).
///
/// Stores only ever see this type, never the secret itself: the caller hashes, so a leaked
/// database does not hand out live sessions. A distinct type (rather than `[UInt8]`) makes
/// passing the raw secret by mistake a compile error.
public struct TokenHash: Hashable, Sendable, CustomStringConvertible {
    /// The digest bytes (32 for SHA-256).
    public let bytes: [UInt8]

    /// Wraps digest bytes computed by the caller (the store does not hash).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lowercase hex of the digest; a hash is not the secret, so this is safe to log.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses lowercase or uppercase hex; nil for odd length or non-hex characters.
    public init?(hex: String) {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0, !chars.isEmpty else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = Self.nibble(chars[index]), let low = Self.nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        bytes = out
    }

    public var description: String { "TokenHash(\(hex.prefix(12))…)" }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
