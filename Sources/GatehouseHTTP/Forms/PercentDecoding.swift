/// Percent-decoding for URL paths, queries and `application/x-www-form-urlencoded` bodies.
public enum PercentDecoding {
    /// Why a component could not be decoded.
    public enum Failure: Error, Equatable, Sendable {
        case invalidEscape
        case invalidUTF8
    }

    /// Decodes `%XX` escapes (and `+` as space when `plusIsSpace`), requiring the result to be valid UTF-8.
    public static func decode<S: Collection<UInt8>>(_ input: S, plusIsSpace: Bool) throws(Failure) -> String {
        if let slice = input as? ArraySlice<UInt8> { return try decode(slice, plusIsSpace: plusIsSpace) }
        return try decode(ArraySlice(input), plusIsSpace: plusIsSpace)
    }

    /// The concrete implementation: generic code across module boundaries is not specialised, and
    /// per-byte witness calls showed up in token-endpoint profiles.
    public static func decode(_ input: ArraySlice<UInt8>, plusIsSpace: Bool) throws(Failure) -> String {
        // Fast path: nothing to decode.
        if !input.contains(where: { $0 == UInt8(ascii: "%") || ($0 == UInt8(ascii: "+") && plusIsSpace) }) {
            guard let string = String(validating: input, as: UTF8.self) else { throw .invalidUTF8 }
            return string
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = input.startIndex
        let end = input.endIndex
        while index < end {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < end,
                      let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) else { throw .invalidEscape }
                bytes.append(high << 4 | low)
                index += 3
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") && plusIsSpace ? UInt8(ascii: " ") : byte)
            index += 1
        }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return string
    }

    /// Percent-encodes everything outside RFC 3986's unreserved set.
    public static func encode(_ string: String) -> String {
        var out = ""
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}
