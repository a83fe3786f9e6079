import COpenSSL
import Foundation

/// SHA-256 (FIPS 180-4) through OpenSSL with a prefetched `EVP_MD`.
///
/// Use it for storing bearer secrets (session ids, refresh tokens, hand-off tokens): store
/// `SHA256.hex(token)` and look the hash up, so a database leak reveals no usable token.
public enum SHA256 {
    /// Digest length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { hash(buffer: $0) }
    }

    /// The 32-byte digest of `bytes` (concrete overload: no generic dispatch on the hot path).
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash(buffer: $0) }
    }

    /// The digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(buffer: UnsafeRawBufferPointer($0)) }
    }

    /// The digest as lowercase hex (64 characters), e.g. for a database column or Apple's nonce.
    public static func hex(_ text: String) -> String { Hex.encode(hash(text)) }

    /// The digest as base64url without padding (as PKCE and `at_hash`-style values use).
    public static func base64URL(_ text: String) -> String { Base64URL.encode(hash(text)) }

    static func hash(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { out, initialized in
            var length: UInt32 = 0
            let ok = EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, OpenSSLAlgorithms.sha256, nil)
            precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
            initialized = byteCount
        }
    }
}

/// Lowercase hexadecimal encoding and strict decoding.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes hex (either case); `nil` on odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): char - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
