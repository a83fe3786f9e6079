import GatehouseHTTP

/// The shipped catalogues and the rule choosing one per request: the user's saved choice, then the
/// `ui_locales` of an OpenID Connect request (OIDC Core §3.1.2.1, carried through the flow in a cookie),
/// then `Accept-Language` by q-value, then the configured default.
struct Languages: Sendable {
    /// By tag, in the order the language setting lists them.
    let catalogues: [Catalogue]
    let defaultTag: String
    private let byTag: [String: Catalogue]
    private let english: Catalogue
    private let englishMessages: EnglishMessageIndex

    /// The tags shipped, in the order the language setting lists them.
    static let shippedTags = ["en", "de", "fr", "es", "ja", "ar"]

    /// The shipped catalogues (`Assets/Files/<tag>.catalogue`); `defaultTag` must be one of them.
    static func shipped(defaultTag: String = "en") throws(Catalogue.ParseError) -> Languages {
        var catalogues: [Catalogue] = []
        for tag in shippedTags {
            let file = "\(tag).catalogue"
            catalogues.append(try Catalogue(parsing: EmbeddedAssets.files[file] ?? "", file: file))
        }
        return Languages(catalogues: catalogues, defaultTag: defaultTag)
    }

    /// Built once at start-up: reading the catalogues parses them, and the pages share the result.
    static let builtIn: Languages = {
        do { return try shipped() } catch { fatalError("a shipped catalogue does not parse: \(error)") }
    }()

    /// - Parameter uiLocalesCookie: the flow's `ui_locales` cookie, named like the server's other cookies.
    init(catalogues: [Catalogue], defaultTag: String, uiLocalesCookie: String = "gatehouse_ui_locales") {
        self.catalogues = catalogues
        self.uiLocalesCookie = uiLocalesCookie
        byTag = Dictionary(catalogues.map { ($0.tag, $0) }, uniquingKeysWith: { first, _ in first })
        english = byTag["en"] ?? catalogues[0]
        englishMessages = EnglishMessageIndex(english: english.messages)
        self.defaultTag = byTag[defaultTag] == nil ? english.tag : defaultTag
    }

    /// The texts in `tag`'s language (English for a tag not shipped).
    func texts(_ tag: String) -> Texts { Texts(byTag[tag] ?? english, fallback: english, englishMessages: englishMessages) }

    /// The cookie `/oauth/authorize` sets from `ui_locales` for the rest of the flow (sign-in, sign-up, consent):
    /// a browser-session cookie, replaced by the next authorization request's.
    let uiLocalesCookie: String

    /// The texts for a request: `saved` (the user's choice), `ui_locales` in the query or the flow's cookie,
    /// `Accept-Language`, the default.
    func texts(for request: Request, saved: String? = nil) -> Texts {
        // A new authorization request starts a new flow: the last flow's language is not its own.
        let newFlow = request.path.hasSuffix("/oauth/authorize") && request.query["gatehouse_pending"] == nil
        let carried = newFlow ? nil : request.cookies.only(uiLocalesCookie)
        return texts(choose(saved: saved, uiLocales: request.query["ui_locales"] ?? carried,
                            acceptLanguage: request.headers["Accept-Language"]))
    }

    /// The tag chosen by the order above.
    func choose(saved: String?, uiLocales: String?, acceptLanguage: String?) -> String {
        if let saved, let tag = match(saved) { return tag }
        if let uiLocales {
            for candidate in uiLocales.split(separator: " ") { if let tag = match(String(candidate)) { return tag } }
        }
        if let acceptLanguage {
            for candidate in Self.preferences(acceptLanguage) { if let tag = match(candidate) { return tag } }
        }
        return defaultTag
    }

    /// The shipped tag for a requested one: exact (case-insensitive), else its primary subtag (`de-CH` → `de`).
    func match(_ requested: String) -> String? {
        let lowered = requested.lowercased()
        if byTag[lowered] != nil { return lowered }
        let primary = Self.primary(lowered)
        return byTag[primary] == nil ? nil : primary
    }

    static func primary(_ tag: String) -> String {
        String(tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
    }

    /// `Accept-Language` (RFC 9110 §12.5.4) as tags by descending q-value, equal ones in header order;
    /// `q=0` (not acceptable) and `*` dropped.
    static func preferences(_ header: String) -> [String] {
        var ranked: [(tag: String, q: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingSpaces }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            if q > 0 && q <= 1 { ranked.append((tag, q, order)) }
        }
        return ranked.sorted { $0.q != $1.q ? $0.q > $1.q : $0.order < $1.order }.map(\.tag)
    }
}
