/// The colours of the provider buttons, chosen from the page background as the providers' guidelines ask:
/// Apple's black button (white on a dark page), Google's light theme (its dark theme on a dark page).
/// The values are the providers' published ones, not the brand's: the guidelines forbid recolouring.
enum ProviderButtonStyle {
    static func cssVariables(for palette: BrandPalette, marks: [String: Branding.Logo]) -> String {
        let dark = palette.background.contrast(with: .white) > palette.background.contrast(with: .black)
        let apple = dark ? "--apple-bg: #ffffff; --apple-ink: #000000; --apple-line: #ffffff;"
                         : "--apple-bg: #000000; --apple-ink: #ffffff; --apple-line: #000000;"
        let google = dark ? "--google-bg: #131314; --google-ink: #e3e3e3; --google-line: #8e918f;"
                          : "--google-bg: #ffffff; --google-ink: #1f1f1f; --google-line: #747775;"
        var css = ":root { \(apple) \(google) }"
        // Marks only where the operator supplied them (docs/provider-buttons.md says why none ship).
        for id in marks.keys.sorted() {
            css += "\n.provider-\(id) { --mark: url(/assets/marks/\(id)); }"
            css += "\n.provider-\(id)::before { content: \"\"; flex: none; width: 20px; height: 20px; background: var(--mark) center / contain no-repeat; }"
        }
        return css
    }
}
