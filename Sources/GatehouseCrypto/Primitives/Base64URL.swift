/// Strict base64url without padding (RFC 4648 §5, as JOSE uses it: RFC 7515 §2).
///
/// Decoding rejects padding, characters outside `A–Z a–z 0–9 - _`, impossible lengths
/// (`count % 4 == 1`) and non-zero trailing bits, so every byte string has exactly one accepted
/// encoding — tokens cannot be altered without changing their signing input.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes as base64url without padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(buffer: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { encode(buffer: $0) }
    }

    static func encode(buffer input: UnsafeRawBufferPointer) -> String {
        let outputCount = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: outputCount) { out in
            alphabet.withUnsafeBufferPointer { table in
                var i = 0, o = 0
                while i + 3 <= input.count {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[o] = table[Int(v >> 18 & 63)]; out[o + 1] = table[Int(v >> 12 & 63)]
                    out[o + 2] = table[Int(v >> 6 & 63)]; out[o + 3] = table[Int(v & 63)]
                    i += 3; o += 4
                }
                let rest = input.count - i
                if rest == 1 {
                    let v = UInt32(input[i]) << 16
                    out[o] = table[Int(v >> 18 & 63)]; out[o + 1] = table[Int(v >> 12 & 63)]
                    o += 2
                } else if rest == 2 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    out[o] = table[Int(v >> 18 & 63)]; out[o + 1] = table[Int(v >> 12 & 63)]
                    out[o + 2] = table[Int(v >> 6 & 63)]
                    o += 3
                }
                return o
            }
        }
    }

    /// Decodes strict base64url (no padding); `nil` if the text is not canonical base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Decodes strict base64url from a UTF-8 slice (used on token segments without copying).
    public static func decode(utf8 input: UnsafeRawBufferPointer) -> [UInt8]? {
        let count = input.count
        if count % 4 == 1 { return nil }
        let outputCount = count / 4 * 3 + (count % 4 == 0 ? 0 : count % 4 - 1)
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            decodeTable.withUnsafeBufferPointer { table in
                var i = 0, o = 0
                while i + 4 <= count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    if (a | b | c | d) & 0xC0 != 0 { failed = true; return }
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(v >> 16 & 0xFF); out[o + 1] = UInt8(v >> 8 & 0xFF); out[o + 2] = UInt8(v & 0xFF)
                    i += 4; o += 3
                }
                let rest = count - i
                if rest == 2 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    // The 4 low bits of the last character must be zero (canonical encoding).
                    if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { failed = true; return }
                    out[o] = a << 2 | b >> 4
                    o += 1
                } else if rest == 3 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])], c = table[Int(input[i + 2])]
                    if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { failed = true; return }
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = (b & 0x0F) << 4 | c >> 2
                    o += 2
                }
                initialized = o
            }
            if failed { initialized = 0 }
        }
        return failed ? nil : output
    }
}
