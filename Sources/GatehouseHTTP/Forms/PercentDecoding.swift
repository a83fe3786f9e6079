/// Percent-decoding for URL paths, queries and `application/x-www-form-urlencoded` bodies.
public enum PercentDecoding {
    /// Why a component could not be decoded.
    public enum Failure: Error, Equatable, Sendable {
        case invalidEscape
        case invalidUTF8
    }

    /// Decodes `%XX` escapes (and `+` as space when `plusIsSpace`), requiring the result to be valid UTF-8.
    public static func decode<S: Collection<UInt8>>(_ input: S, plusIsSpace: Bool) throws(Failure) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = input.startIndex
        while index != input.endIndex {
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "%"):
                let first = input.index(after: index)
                guard first != input.endIndex else { throw .invalidEscape }
                let second = input.index(after: first)
                guard second != input.endIndex,
                      let high = hexValue(input[first]), let low = hexValue(input[second]) else { throw .invalidEscape }
                bytes.append(high << 4 | low)
                index = input.index(after: second)
                continue
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
            index = input.index(after: index)
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
