/// Cookies sent by the client in `Cookie` headers, parsed per RFC 6265 §4.2 / §5.4.
///
/// Pairs whose name is not an RFC 7230 token or whose value holds characters outside `cookie-octet`
/// are dropped rather than guessed at. When a name repeats (a browser sends the most specific path
/// first), `self[name]` gives the first and `all(name)` every value.
public struct RequestCookies: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)] = []

    public init() {}

    /// Parses every `Cookie` header value given.
    public init(headerValues: [String]) {
        for header in headerValues {
            // An index walk, not `split`: the generic split called a closure per byte of the header.
            let bytes = header.utf8
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
                if start < end, let pair = Self.parsePair(bytes[start..<end]) { pairs.append(pair) }
                start = end < bytes.endIndex ? bytes.index(after: end) : end
            }
        }
    }

    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }
    public func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }
    /// The value of `name` when it was sent exactly once; nil when absent or repeated (another host or path
    /// can plant a same-named cookie, and which one comes first is the browser's choice, not the server's).
    public func only(_ name: String) -> String? {
        var found: String?
        for pair in pairs where pair.name == name {
            if found != nil { return nil }
            found = pair.value
        }
        return found
    }
    /// Whether `name` was sent more than once.
    public func isRepeated(_ name: String) -> Bool { pairs.lazy.filter { $0.name == name }.prefix(2).count == 2 }
    public var count: Int { pairs.count }

    static func parsePair(_ raw: Substring.UTF8View.SubSequence) -> (name: String, value: String)? {
        let trimmed = raw.drop { $0 == 0x20 || $0 == 0x09 }
        guard let eq = trimmed.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let nameBytes = trimmed[trimmed.startIndex..<eq]
        var valueBytes = trimmed[trimmed.index(after: eq)...]
        // Trailing whitespace before the next ';' is not part of the value.
        while let last = valueBytes.last, last == 0x20 || last == 0x09 { valueBytes = valueBytes.dropLast() }
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(CookieGrammar.isTokenByte) else { return nil }
        if valueBytes.count >= 2, valueBytes.first == 0x22, valueBytes.last == 0x22 {
            valueBytes = valueBytes.dropFirst().dropLast()
        }
        guard valueBytes.allSatisfy(CookieGrammar.isCookieOctet) else { return nil }
        return (String(decoding: nameBytes, as: UTF8.self), String(decoding: valueBytes, as: UTF8.self))
    }

    public static func == (lhs: RequestCookies, rhs: RequestCookies) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }
}

/// Character classes from RFC 6265 §4.1.1 and RFC 7230 §3.2.6.
enum CookieGrammar {
    static func isTokenByte(_ b: UInt8) -> Bool {
        guard b > 0x20 && b < 0x7F else { return false }
        // The separators as a switch: searching a string literal's UTF-8 view cost ~600 instructions a byte.
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
             UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="),
             UInt8(ascii: "{"), UInt8(ascii: "}"):
            return false
        default:
            return true
        }
    }

    /// `%x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E`: no space, quote, comma, semicolon or backslash.
    static func isCookieOctet(_ b: UInt8) -> Bool {
        b == 0x21 || (0x23...0x2B).contains(b) || (0x2D...0x3A).contains(b) || (0x3C...0x5B).contains(b)
            || (0x5D...0x7E).contains(b)
    }
}
