/// RFC 4648 base32 (the alphabet `A–Z2–7`), as authenticator apps expect a TOTP secret in an
/// `otpauth://` URI: upper case, without padding.
public enum Base32 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes without `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes upper- or lower-case base32, ignoring spaces and trailing `=` (how people copy a
    /// secret by hand); nil for any other character or leftover bits that are not zero.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0, bits = 0
        var padding = false
        for char in text.utf8 where char != UInt8(ascii: " ") {
            if char == UInt8(ascii: "=") { padding = true; continue }
            guard !padding else { return nil }
            let value: UInt32
            switch char {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(char - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(char - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = UInt32(char - UInt8(ascii: "2")) + 26
            default: return nil
            }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        guard buffer == 0 else { return nil }
        return out
    }
}
