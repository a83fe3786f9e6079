/// A CLDR plural category: which form of a counted phrase a language uses for a number
/// (https://cldr.unicode.org/index/cldr-spec/plural-rules). English has two, Arabic six, Japanese one.
enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other

    /// The categories a language's catalogue must spell for every counted phrase, and the rule choosing one
    /// for a whole number (the pages count sessions, minutes and seconds: never fractions).
    struct Rule: Sendable {
        let categories: [PluralCategory]
        let choose: @Sendable (Int) -> PluralCategory

        /// CLDR's rules for the languages Gatehouse ships, by primary language subtag; "other" only otherwise.
        static func forLanguage(_ primary: String) -> Rule {
            switch primary {
            case "en", "de":
                return Rule(categories: [.one, .other]) { $0 == 1 ? .one : .other }
            case "es":
                // "many": a non-zero multiple of a million ("1 millón de sesiones").
                return Rule(categories: [.one, .many, .other]) { n in
                    n == 1 ? .one : n != 0 && n % 1_000_000 == 0 ? .many : .other
                }
            case "fr":
                // French counts 0 and 1 as singular ("0 session", "1 session").
                return Rule(categories: [.one, .many, .other]) { n in
                    n == 0 || n == 1 ? .one : n % 1_000_000 == 0 ? .many : .other
                }
            case "ar":
                return Rule(categories: [.zero, .one, .two, .few, .many, .other]) { n in
                    let hundreds = n % 100
                    switch n {
                    case 0: return .zero
                    case 1: return .one
                    case 2: return .two
                    default: return (3...10).contains(hundreds) ? .few : (11...99).contains(hundreds) ? .many : .other
                    }
                }
            default:
                return Rule(categories: [.other]) { _ in .other }
            }
        }
    }
}
