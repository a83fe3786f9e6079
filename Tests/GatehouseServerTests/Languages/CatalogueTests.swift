import Foundation
@testable import GatehouseServer
import GatehouseHTTP
import Testing

/// The catalogue files and the rules around them: every shipped language has every key (and every plural
/// form its CLDR rule needs), code uses no key English lacks, and English has no key the code never uses.
@Suite struct CatalogueTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift source of the server target, read once.
    static let serverSources: String = {
        let folder = root.appendingPathComponent("Sources/GatehouseServer")
        var text = ""
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)!
        where url.pathExtension == "swift" {
            text += (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        return text
    }()

    /// Every Swift source of every target (the English messages `message.*` translates are raised anywhere).
    static let allSources: String = {
        var text = ""
        for case let url as URL in FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)!
        where url.pathExtension == "swift" {
            text += (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        }
        return text
    }()

    static var english: Catalogue { Languages.builtIn.texts("en").catalogue }

    @Test func everyShippedCatalogueParsesAndNamesItsLanguage() throws {
        let languages = try Languages.shipped()
        #expect(languages.catalogues.map(\.tag) == Languages.shippedTags)
        for catalogue in languages.catalogues {
            #expect(!catalogue.messages.isEmpty, "\(catalogue.tag) is empty")
            #expect(catalogue.name != catalogue.tag, "\(catalogue.tag) has no @name")
        }
        #expect(languages.catalogues.filter(\.rightToLeft).map(\.tag) == ["ar"])
    }

    @Test func everyCatalogueHasEveryKeyWithItsPluralForms() throws {
        let english = Self.english
        for catalogue in try Languages.shipped().catalogues where catalogue.tag != "en" {
            let rule = PluralCategory.Rule.forLanguage(catalogue.tag)
            for key in english.messages.keys.sorted() {
                if let open = key.firstIndex(of: "[") {
                    // A counted phrase: the language's own categories, whatever English has.
                    let phrase = key[..<open]
                    for category in rule.categories {
                        #expect(catalogue.messages["\(phrase)[\(category.rawValue)]"] != nil,
                                "\(catalogue.tag).catalogue lacks \(phrase)[\(category.rawValue)]")
                    }
                } else {
                    #expect(catalogue.messages[key] != nil, "\(catalogue.tag).catalogue lacks \(key)")
                }
            }
            for key in catalogue.messages.keys {
                let phrase = key.firstIndex(of: "[").map { String(key[..<$0]) } ?? key
                #expect(english.phrases.contains(phrase), "\(catalogue.tag).catalogue has \(key), which English lacks")
            }
        }
    }

    @Test func everyPlaceholderOfEnglishIsInEveryTranslation() throws {
        func placeholders(_ text: String) -> Set<String> {
            Set(text.matches(of: /\{([a-z_]+)\}/).map { String($0.1) })
        }
        let english = Self.english
        for catalogue in try Languages.shipped().catalogues where catalogue.tag != "en" {
            for (key, text) in catalogue.messages {
                let phrase = key.firstIndex(of: "[").map { String(key[..<$0]) } ?? key
                let reference = english.messages[key] ?? english.messages["\(phrase)[other]"] ?? ""
                var expected = placeholders(reference)
                // A language may spell a count in words for one form ("un", "واحد"), never drop another value.
                if key.contains("[") { expected.remove("count") }
                #expect(expected.isSubset(of: placeholders(text)), "\(catalogue.tag): \(key) drops a placeholder of \(reference)")
            }
        }
    }

    /// The keys the server's code names: the literals inside `t[…]`, `t(…`, `t.count(…`, `t.html(…` (a ternary
    /// of two keys included), the account notices' keys and the mails' keys.
    static var keysInCode: Set<String> {
        var keys = Set<String>()
        let source = serverSources
        // Not `\b`: Unicode word boundaries do not break `web.texts` at its dot.
        for lookup in source.matches(of: /(?:^|[^A-Za-z0-9_])(?:t|texts)(?:\.html|\.count)?[\[(]([^\]\),\n]*)/) {
            for literal in lookup.1.matches(of: /"([a-z_]+\.[a-z0-9_.]+)"/) { keys.insert(String(literal.1)) }
        }
        for literal in source.matches(of: /"(notice\.[a-z0-9_.]+)"/) { keys.insert(String(literal.1)) }
        let mails = (try? String(contentsOf: root.appendingPathComponent("Sources/GatehouseServer/Languages/CatalogueMailWording.swift"),
                                 encoding: .utf8)) ?? ""
        for literal in mails.matches(of: /"(mail\.[a-z0-9_.]+)"/) { keys.insert(String(literal.1)) }
        return keys
    }

    @Test func everyKeyTheServerUsesIsInEnglish() {
        let phrases = Self.english.phrases
        let keys = Self.keysInCode
        #expect(keys.count > 150)
        for key in keys.sorted() where !phrases.contains(key) {
            Issue.record("the code uses \(key), which en.catalogue lacks")
        }
    }

    @Test func everyEnglishKeyIsUsedByTheServer() {
        let used = Self.keysInCode
        for phrase in Self.english.phrases.sorted() {
            if phrase.hasPrefix("status.") {
                // Looked up by the error's status code.
                #expect(Int(phrase.dropFirst("status.".count)) != nil, "\(phrase) is not a status code")
            } else if phrase.hasPrefix("message.") {
                // Found by its English text, which some code raises as a literal (a `{name}` in it as an
                // interpolation there).
                let text = Self.english.messages[phrase] ?? ""
                if !Self.raisedInCode(text) { Issue.record("no code raises the text of \(phrase)") }
            } else if !used.contains(phrase) {
                Issue.record("en.catalogue has \(phrase), which no code uses")
            }
        }
    }

    /// Whether some source raises `text` as a string literal, its one `{name}` an interpolation `\(…)`.
    static func raisedInCode(_ text: String) -> Bool {
        guard let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}") else {
            return allSources.contains("\"\(text)\"")
        }
        let prefix = "\"" + text[..<open] + "\\(", suffix = text[text.index(after: close)...] + "\""
        var rest = Substring(allSources)
        while let start = rest.firstRange(of: prefix) {
            let line = rest[start.upperBound...].prefix { $0 != "\n" }
            if line.contains(suffix) { return true }
            rest = rest[start.upperBound...]
        }
        return false
    }

    @Test func englishSentencesWithAWordInThemAreTranslated() {
        let de = Languages.builtIn.texts("de")
        #expect(de.translating("This address does not accept PUT.") == "Diese Adresse nimmt kein PUT an.")
        #expect(de.translating("The client_id parameter appears more than once.") == "Der Parameter client_id kommt mehr als einmal vor.")
        #expect(de.translating("The form must name exactly one authorization request.") == "Das Formular muss genau eine Autorisierungsanfrage nennen.")
        // A clause where the word should be is not one word: the sentence is shown as it is.
        #expect(de.translating("This address does not accept this or that.") == "This address does not accept this or that.")
    }

    @Test func cldrPluralRules() {
        func forms(_ tag: String, _ numbers: [Int]) -> [String] {
            let rule = PluralCategory.Rule.forLanguage(tag)
            return numbers.map { rule.choose($0).rawValue }
        }
        #expect(forms("en", [0, 1, 2, 21]) == ["other", "one", "other", "other"])
        #expect(forms("fr", [0, 1, 2, 1_000_000]) == ["one", "one", "other", "many"])
        #expect(forms("es", [0, 1, 2, 2_000_000]) == ["other", "one", "other", "many"])
        #expect(forms("ja", [0, 1, 2]) == ["other", "other", "other"])
        // Arabic's six: 0, 1, 2, 3–10, 11–99, 100–102 (and 103 is "few" again by its last two digits).
        #expect(forms("ar", [0, 1, 2, 3, 10, 11, 99, 100, 102, 103, 111]) ==
                ["zero", "one", "two", "few", "few", "many", "many", "other", "other", "few", "many"])
        #expect(PluralCategory.Rule.forLanguage("ar").categories.count == 6)
        #expect(PluralCategory.Rule.forLanguage("ja").categories == [.other])
    }

    @Test func countedPhrasesFollowTheRule() {
        let en = Languages.builtIn.texts("en")
        #expect(en.count("time.minutes", 1) == "1 minute")
        #expect(en.count("time.minutes", 5) == "5 minutes")
    }

    @Test func parseErrorsNameTheFileAndLine() throws {
        func failure(_ text: String) -> Catalogue.ParseError? {
            do { _ = try Catalogue(parsing: text, file: "xx.catalogue"); return nil } catch { return error }
        }
        #expect(failure("@language xx\nok = fine\nno equals sign") == .init(file: "xx.catalogue", line: 3, reason: "expected `key = text`"))
        #expect(failure("@language xx\na = 1\na = 2")?.line == 3)
        #expect(failure("@language xx\nBad Key = x")?.line == 2)
        #expect(failure("@language xx\nkey[several] = x")?.line == 2)
        #expect(failure("@language xx\n@direction up")?.line == 2)
        #expect(failure("a = 1")?.reason == "missing @language")
        #expect(failure("@language xx\n# comment\n\nkey[one] = a\\nb") == nil)
        #expect(try Catalogue(parsing: "@language xx\nk = a\\nb\\\\c", file: "x").messages["k"] == "a\nb\\c")
    }

    @Test func htmlArgumentsPassThroughAndTheTextIsEscaped() {
        let catalogue = Catalogue(tag: "xx", name: "X", rightToLeft: false, messages: ["k": "<b> & {link} {missing}"])
        let texts = Texts(catalogue, fallback: catalogue)
        #expect(texts.html("k", ["link": #"<a href="/x">x</a>"#]).text == #"&lt;b&gt; &amp; <a href="/x">x</a> {missing}"#)
        #expect(texts("k", ["link": "<i>"]) == "<b> & <i> {missing}")
        #expect(texts["absent"] == "absent")
    }

    @Test func translatingFindsEnglishSentencesByTheirText() {
        let en = Languages.builtIn.texts("en")
        #expect(en.translating("No such session.") == "No such session.")
        #expect(en.translating("Not in any catalogue.") == "Not in any catalogue.")
    }

    @Test func theLanguageIsTheSavedChoiceThenUILocalesThenAcceptLanguageThenTheDefault() {
        let languages = Languages(catalogues: Languages.builtIn.catalogues, defaultTag: "es")
        #expect(languages.choose(saved: "ja", uiLocales: "de", acceptLanguage: "fr") == "ja")
        #expect(languages.choose(saved: nil, uiLocales: "xx de-CH", acceptLanguage: "fr") == "de")
        #expect(languages.choose(saved: "xx", uiLocales: nil, acceptLanguage: "pt, fr;q=0.4, ar;q=0.9") == "ar")
        #expect(languages.choose(saved: nil, uiLocales: nil, acceptLanguage: "de;q=0, fr;q=0.1") == "fr", "q=0 is not acceptable")
        #expect(languages.choose(saved: nil, uiLocales: nil, acceptLanguage: "*, pt") == "es")
        #expect(languages.choose(saved: nil, uiLocales: nil, acceptLanguage: nil) == "es")
        #expect(Languages.preferences("en;q=0.5, de, fr;q=0.5") == ["de", "en", "fr"], "equal q-values keep the header's order")
    }
}
