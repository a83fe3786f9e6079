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

    /// Parses a catalogue file's text; `file` names it in errors.
    init(parsing text: String, file: String) throws(ParseError) {
        var tag: String?, name: String?, rightToLeft = false
        var messages: [String: String] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingSpaces
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                let parts = line.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ParseError(file: file, line: number, reason: "a header needs a value") }
                switch parts[0] {
                case "language": tag = parts[1].trimmingSpaces
                case "name": name = parts[1].trimmingSpaces
                case "direction":
                    guard ["ltr", "rtl"].contains(parts[1].trimmingSpaces) else {
                        throw ParseError(file: file, line: number, reason: "@direction is ltr or rtl")
                    }
                    rightToLeft = parts[1].trimmingSpaces == "rtl"
                default: throw ParseError(file: file, line: number, reason: "unknown header @\(parts[0])")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(file: file, line: number, reason: "expected `key = text`")
            }
            let key = line[..<equals].trimmingSpaces
            guard Self.isKey(key) else { throw ParseError(file: file, line: number, reason: "`\(key)` is not a key (a-z, 0-9, _ and ., optionally [category])") }
            guard messages[key] == nil else { throw ParseError(file: file, line: number, reason: "`\(key)` is defined twice") }
            messages[key] = Self.unescape(line[line.index(after: equals)...].trimmingSpaces)
        }
        guard let tag else { throw ParseError(file: file, line: 1, reason: "missing @language") }
        self.init(tag: tag, name: name ?? tag, rightToLeft: rightToLeft, messages: messages)
    }

    /// `a.b_c` or `a.b[few]`: lowercase words joined by dots, with an optional plural category.
    static func isKey(_ key: String) -> Bool {
        var base = Substring(key)
        if key.hasSuffix("]"), let open = key.firstIndex(of: "[") {
            guard PluralCategory(rawValue: String(key[key.index(after: open)..<key.index(before: key.endIndex)])) != nil else { return false }
            base = key[..<open]
        }
        return !base.isEmpty && base.first != "." && base.last != "."
            && base.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "." }
    }

    /// `\n` is a line break (mail bodies), `\\` a backslash.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = "", escaping = false
        for character in text {
            if escaping {
                out.append(character == "n" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        if escaping { out.append("\\") }
        return out
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
