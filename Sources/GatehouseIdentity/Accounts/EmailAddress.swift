/// A normalised email address: trimmed, lower-cased, and shaped like `local@domain.tld`.
///
/// Deliberately not a full RFC 5322 parser: quoted local parts and IP literals are refused, since
/// they are far more often attacks or typos than real users.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public static let maximumLength = 254

    public init?(_ raw: String) {
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
        value = trimmed
    }
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
