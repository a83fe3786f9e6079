/// Finds the catalogue key of a message the domain or the HTTP layer raised as an English sentence: the
/// English catalogue's `message.*` entry with that exact text, or one whose single `{name}` stands for a
/// word the sentence carries (`The {parameter} parameter appears more than once.`).
struct EnglishMessageIndex: Sendable {
    private let exact: [String: String]
    private let patterns: [(prefix: String, suffix: String, name: String, key: String)]

    static let empty = EnglishMessageIndex(english: [:])

    /// `english`: the English catalogue's messages; only `message.*` keys are indexed.
    init(english: [String: String]) {
        let messages = english.filter { $0.key.hasPrefix("message.") }.sorted { $0.key < $1.key }
        exact = Dictionary(messages.filter { !$0.value.contains("{") }.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        patterns = messages.compactMap { key, text in
            guard let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}"),
                  !text[text.index(after: close)...].contains("{") else { return nil }
            return (String(text[..<open]), String(text[text.index(after: close)...]), String(text[text.index(after: open)..<close]), key)
        }
    }

    /// The key and the placeholder's value for `sentence`; nil for a sentence no catalogue holds.
    func lookUp(_ sentence: String) -> (key: String, arguments: [String: String])? {
        if let key = exact[sentence] { return (key, [:]) }
        for pattern in patterns where sentence.count > pattern.prefix.count + pattern.suffix.count
            && sentence.hasPrefix(pattern.prefix) && sentence.hasSuffix(pattern.suffix) {
            let value = sentence.dropFirst(pattern.prefix.count).dropLast(pattern.suffix.count)
            // A word, not a clause: a value with a space would let one pattern swallow another sentence.
            guard !value.contains(" ") else { continue }
            return (pattern.key, [pattern.name: String(value)])
        }
        return nil
    }
}
