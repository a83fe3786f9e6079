/// A normalised email address: trimmed, lower-cased, and shaped like `local@domain.tld`.
///
/// Deliberately not a full RFC 5322 parser: quoted local parts and IP literals are refused, since
/// they are far more often attacks or typos than real users.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public static let maximumLength = 254

    public init?(_ raw: String) {
        // An ASCII address is checked on its bytes: the same rules, without a Character walk per byte (an import
        // checks two addresses a row, and the Character way was a fifth of a large import's time).
        guard let value = raw.utf8.allSatisfy({ $0 < 0x80 }) ? Self.normalizedASCII(raw) : Self.normalized(raw) else { return nil }
        self.value = value
    }

    /// The rules on `Character`s, for any address.
    static func normalized(_ raw: String) -> String? {
        let trimmed = raw.trimmingASCIIWhitespace().lowercased()
        guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maximumLength else { return nil }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let local = parts[0], domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return nil }
        let localAllowed = "abcdefghijklmnopqrstuvwxyz0123456789.!#$%&'*+/=?^_`{|}~-"
        guard local.allSatisfy({ localAllowed.contains($0) }), !local.hasPrefix("."), !local.hasSuffix("."),
              !local.contains("..") else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= 63, !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        }
        guard labels.last!.allSatisfy({ $0.isLetter }) || labels.last!.hasPrefix("xn--") else { return nil }
        return trimmed
    }

    /// ``normalized(_:)`` for an ASCII address, on bytes: every ASCII character is one byte (CR LF, the one
    /// two-byte Character, is refused by both, as CR alone is), ASCII letters are A–Z and a–z, digits 0–9.
    static func normalizedASCII(_ raw: String) -> String? {
        var bytes = Array(raw.utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while let last = bytes.last, isSpace(last) { bytes.removeLast() }
        let start = bytes.firstIndex(where: { !isSpace($0) }) ?? bytes.count
        bytes.removeFirst(start)
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") { bytes[index] += 32 }
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return nil }
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), !bytes[(at + 1)...].contains(UInt8(ascii: "@")) else { return nil }
        let local = bytes[..<at], domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, !domain.isEmpty else { return nil }
        func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard local.allSatisfy({ isLetter($0) || isDigit($0) || localSymbols.contains($0) }), local.first != UInt8(ascii: "."),
              local.last != UInt8(ascii: "."), !zip(local, local.dropFirst()).contains(where: { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") })
        else { return nil }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard !label.isEmpty, label.count <= 63, label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                  label.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) else { return nil }
        }
        guard labels.last!.allSatisfy(isLetter) || labels.last!.starts(with: "xn--".utf8) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The local part's characters besides letters and digits.
    private static let localSymbols = Set(".!#$%&'*+/=?^_`{|}~-".utf8)
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let bytes = Array(utf8)
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0A || bytes[start] == 0x0D { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
