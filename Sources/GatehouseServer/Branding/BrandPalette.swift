/// The brand's three colours and the shades derived from them, checked against WCAG 2.2 AA when the
/// server starts: a palette that would make a page unreadable is refused, not served.
public struct BrandPalette: Sendable, Equatable {
    /// Buttons, links and the focus ring.
    public let primary: BrandColor
    /// The page behind everything.
    public let background: BrandColor
    /// Body text.
    public let text: BrandColor

    /// The label colour on primary buttons: white, the text or the background colour, whichever contrasts most.
    public let onPrimary: BrandColor
    /// Secondary text: as far towards the background as 4.5:1 allows (at most 45 %).
    public let muted: BrandColor
    /// Field borders and rules: as far towards the background as 3:1 (WCAG 1.4.11) allows.
    public let line: BrandColor

    public static let standard = try! BrandPalette(primary: BrandColor(hex: "#2456d3")!, background: BrandColor(hex: "#f6f7f9")!,
                                                  text: BrandColor(hex: "#1d2433")!)

    /// WCAG 2.2 AA: 4.5:1 for text (1.4.3), 3:1 for the parts of controls (1.4.11).
    static let textContrast = 4.5, nonTextContrast = 3.0

    /// Derives the shades and checks every pair a page paints. The error names the colours and the ratio.
    public init(primary: BrandColor, background: BrandColor, text: BrandColor) throws(ConfigurationError) {
        self.primary = primary; self.background = background; self.text = text
        func require(_ a: BrandColor, _ b: BrandColor, _ minimum: Double, _ what: String) throws(ConfigurationError) {
            let ratio = a.contrast(with: b)
            guard ratio >= minimum else {
                throw ConfigurationError(key: "branding.colors",
                                    problem: "\(what): \(a) on \(b) has a contrast of \(Self.format(ratio)):1, WCAG 2.2 AA needs \(Self.format(minimum)):1")
            }
        }
        try require(text, background, Self.textContrast, "text on background")
        // Links are primary-coloured text on the background; buttons are primary areas on it.
        try require(primary, background, Self.textContrast, "links (primary on background)")
        // Never below 4.5:1: the background is a candidate, and primary on background passed above.
        onPrimary = [BrandColor.white, text, background].max { $0.contrast(with: primary) < $1.contrast(with: primary) }!
        muted = Self.lightest(text, towards: background, keeping: Self.textContrast, atMost: 0.45)
        line = Self.lightest(text, towards: background, keeping: Self.nonTextContrast, atMost: 1)
    }

    /// The mix of `color` towards `background` furthest along that still keeps `ratio` against it.
    static func lightest(_ color: BrandColor, towards background: BrandColor, keeping ratio: Double, atMost limit: Double) -> BrandColor {
        var best = color
        for step in 1...100 {
            let fraction = Double(step) / 100
            guard fraction <= limit else { break }
            let candidate = color.mixed(with: background, fraction: fraction)
            guard candidate.contrast(with: background) >= ratio else { break }
            best = candidate
        }
        return best
    }

    static func format(_ ratio: Double) -> String {
        let rounded = (ratio * 100).rounded(.down) / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The CSS custom properties the stylesheet paints with.
    var cssVariables: String {
        ":root { --primary: \(primary); --on-primary: \(onPrimary); --bg: \(background); --ink: \(text); "
            + "--muted: \(muted); --line: \(line); }"
    }
}
