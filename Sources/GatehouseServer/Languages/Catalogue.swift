/// One language's messages, read from a catalogue file (docs/languages.md): `key = text` lines, counted
/// phrases as `key[one] = …`, `key[other] = …`, and `@language`, `@name`, `@direction` headers.
struct Catalogue: Sendable, Equatable {
    /// The BCP 47 tag (`en`, `de`, `ar`).
    let tag: String
    /// The language's own name, for the language setting ("Deutsch").
    let name: String
    let rightToLeft: Bool
    /// Message texts by key; a counted phrase's forms are stored as `key[category]`.
    let messages: [String: String]

    /// A catalogue file that does not parse: the file and line, so a start-up error points at it.
    struct ParseError: Error, Equatable, CustomStringConvertible {
        let file: String
        let line: Int
        let reason: String
        var description: String { "\(file):\(line): \(reason)" }
    }

    init(tag: String, name: String, rightToLeft: Bool, messages: [String: String]) {
        self.tag = tag; self.name = name; self.rightToLeft = rightToLeft; self.messages = messages
    }

    /// Parses a catalogue file's text; `file` names it in errors. It works on the UTF-8 bytes: every
    /// syntax character is ASCII, and Character-level scanning of the six shipped files was a fifth of
    /// start-up. Lines end at LF; a CR before it is trimmed like a space.
    init(parsing text: String, file: String) throws(ParseError) {
        var tag: String?, name: String?, rightToLeft = false
        var messages: [String: String] = [:]
        let bytes = Array(text.utf8)
        var lineStart = 0, number = 0
        while lineStart <= bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer { lineStart = lineEnd + 1 }
            number += 1
            let line = Self.trimmed(bytes[lineStart..<lineEnd])
            guard let first = line.first, first != UInt8(ascii: "#") else { continue }
            if first == UInt8(ascii: "@") {
                let header = line.dropFirst()
                guard let space = header.firstIndex(of: UInt8(ascii: " ")) else {
                    throw ParseError(file: file, line: number, reason: "a header needs a value")
                }
                let field = String(decoding: header[..<space], as: UTF8.self)
                let value = String(decoding: Self.trimmed(header[(space + 1)...]), as: UTF8.self)
                switch field {
                case "language": tag = value
                case "name": name = value
                case "direction":
                    guard value == "ltr" || value == "rtl" else {
                        throw ParseError(file: file, line: number, reason: "@direction is ltr or rtl")
                    }
                    rightToLeft = value == "rtl"
                default: throw ParseError(file: file, line: number, reason: "unknown header @\(field)")
                }
                continue
            }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw ParseError(file: file, line: number, reason: "expected `key = text`")
            }
            let key = String(decoding: Self.trimmed(line[..<equals]), as: UTF8.self)
            guard Self.isKey(key) else { throw ParseError(file: file, line: number, reason: "`\(key)` is not a key (a-z, 0-9, _ and ., optionally [category])") }
            guard messages[key] == nil else { throw ParseError(file: file, line: number, reason: "`\(key)` is defined twice") }
            messages[key] = Self.unescape(Self.trimmed(line[(equals + 1)...]))
        }
        guard let tag else { throw ParseError(file: file, line: 1, reason: "missing @language") }
        self.init(tag: tag, name: name ?? tag, rightToLeft: rightToLeft, messages: messages)
    }

    /// The bytes without the spaces, tabs and CRs around them.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[start...end]
    }

    /// `a.b_c` or `a.b[few]`: lowercase words joined by dots, with an optional plural category.
    static func isKey(_ key: String) -> Bool {
        var base = Substring(key)
        if key.hasSuffix("]"), let open = key.firstIndex(of: "[") {
            guard PluralCategory(rawValue: String(key[key.index(after: open)..<key.index(before: key.endIndex)])) != nil else { return false }
            base = key[..<open]
        }
        return !base.isEmpty && base.first != "." && base.last != "."
            && base.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2E }
    }

    /// `\n` is a line break (mail bodies), `\\` a backslash.
    static func unescape(_ text: String) -> String { unescape(ArraySlice(text.utf8)) }

    private static func unescape(_ text: ArraySlice<UInt8>) -> String {
        let backslash = UInt8(ascii: "\\")
        guard text.contains(backslash) else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = [], escaping = false
        out.reserveCapacity(text.count)
        for byte in text {
            if escaping {
                out.append(byte == UInt8(ascii: "n") ? 0x0A : byte)
                escaping = false
            } else if byte == backslash {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        if escaping { out.append(backslash) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The keys without plural categories: `a.b[one]` and `a.b[other]` are the one phrase `a.b`.
    var phrases: Set<String> {
        Set(messages.keys.map { key in key.firstIndex(of: "[").map { String(key[..<$0]) } ?? key })
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
