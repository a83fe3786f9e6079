import GatehouseHTTP

/// The messages of one page or mail in the reader's language, falling back to English for a key the
/// language's catalogue lacks (a test refuses that for the shipped catalogues). `{name}` in a text is
/// replaced by the argument of that name.
///
///     t["sign_in.title"]                                  // "Sign in"
///     t("native.continue", ["app": name])                 // "Continue to Example"
///     t.count("account.sessions", 3)                      // "3 sessions" — the language's plural rule
///     t.html("delete.confirm_label", ["email": bold])     // HTML: the text escaped, `bold` passed through
struct Texts: Sendable {
    let catalogue: Catalogue
    let fallback: Catalogue
    let plural: PluralCategory.Rule
    /// English text → key, for messages that reach a page as English sentences (``translating(_:)``).
    let englishMessages: EnglishMessageIndex
    /// The reader's saved IANA time zone for the times on the page; nil: UTC.
    var timeZone: String?

    init(_ catalogue: Catalogue, fallback: Catalogue, englishMessages: EnglishMessageIndex = .empty) {
        self.catalogue = catalogue
        self.fallback = fallback
        self.englishMessages = englishMessages
        plural = .forLanguage(Languages.primary(catalogue.tag))
    }

    /// A message the domain or the HTTP layer wrote in English (an `HTTPError`'s public message, a password
    /// rule) in this language: the English catalogue's `message.*` entry with that text names the key (a
    /// `{name}` in it matching one word, which is carried over). Text no catalogue holds is shown as it is.
    func translating(_ english: String) -> String {
        englishMessages.lookUp(english).map { self($0.key, $0.arguments) } ?? english
    }

    /// The `lang` attribute's value.
    var tag: String { catalogue.tag }
    /// The `dir` attribute's value.
    var direction: String { catalogue.rightToLeft ? "rtl" : "ltr" }

    /// The text of `key`; the key itself when no catalogue has it, so a missing text shows, never crashes.
    subscript(_ key: String) -> String {
        catalogue.messages[key] ?? fallback.messages[key] ?? key
    }

    /// The text of `key` with `{name}` placeholders filled.
    func callAsFunction(_ key: String, _ arguments: [String: String] = [:]) -> String {
        Self.fill(self[key], arguments)
    }

    /// The form of a counted phrase for `count` (its `{count}` filled), by the language's CLDR plural rule.
    func count(_ key: String, _ count: Int, _ arguments: [String: String] = [:]) -> String {
        let form = "\(key)[\(plural.choose(count).rawValue)]"
        let text = catalogue.messages[form] ?? catalogue.messages["\(key)[other]"]
            ?? fallback.messages["\(key)[\(count == 1 ? "one" : "other")]"] ?? key
        var arguments = arguments
        arguments["count"] = String(count)
        return Self.fill(text, arguments)
    }

    /// The text of `key` as markup: the text itself escaped, the `HTML` arguments passed through (a link or
    /// a bold address inside a sentence, whose place differs between languages).
    func html(_ key: String, _ arguments: [String: HTML]) -> HTML {
        var out = HTML.empty
        var rest = Substring(self[key])
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += "\(rest[..<open])"
            let name = String(rest[rest.index(after: open)..<close])
            if let value = arguments[name] { out += value } else { out += "\(rest[open...close])" }
            rest = rest[rest.index(after: close)...]
        }
        return out + "\(rest)"
    }

    static func fill(_ text: String, _ arguments: [String: String]) -> String {
        guard !arguments.isEmpty, text.contains("{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            out += arguments[name] ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }
}
