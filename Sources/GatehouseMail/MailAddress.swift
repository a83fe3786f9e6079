/// The plain addresses (`local@domain`) Gatehouse sends to and from.
///
/// Deliberately narrower than RFC 5322: no display names, comments, quoted local parts or
/// angle brackets, so an address can never smuggle a header line or a second recipient.
enum MailAddress {
    static func isValid(_ address: String) -> Bool {
        guard address.utf8.count <= 254, let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at], domain = address[address.index(after: at)...]
        guard !local.isEmpty, !domain.isEmpty, !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains("..") else {
            return false
        }
        // Printable, non-space, and none of the characters that structure an address header.
        let forbidden: Set<Unicode.Scalar> = ["<", ">", "(", ")", ",", ";", ":", "\\", "\"", "[", "]", "@"]
        return address.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
            && !local.unicodeScalars.contains(where: forbidden.contains)
            && !domain.unicodeScalars.contains(where: forbidden.contains)
    }

    /// The part after the `@`, for Message-ID.
    static func domain(of address: String) -> String {
        address.lastIndex(of: "@").map { String(address[address.index(after: $0)...]) } ?? "localhost"
    }
}
