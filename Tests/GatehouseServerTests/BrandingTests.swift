import Foundation
import GatehouseServer
import GatehouseTesting
import Testing

@Suite struct BrandingTests {
    /// A configuration folder with a logo and a stylesheet beside the JSON file, as an operator lays it out.
    static func brandedConfiguration(_ branding: String, demo: Bool = false) throws -> GatehouseConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gh-brand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#
            .write(to: folder.appendingPathComponent("acme.svg"), atomically: true, encoding: .utf8)
        try "main { font-family: Georgia; }".write(to: folder.appendingPathComponent("acme.css"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("gatehouse.json").path
        try ##"{"branding": \##(branding)}"##.write(toFile: path, atomically: true, encoding: .utf8)
        return try GatehouseConfiguration.load(environment: demo ? ["GATEHOUSE_DEMO": "1"] : [:], configPath: path)
    }

    /// The `branding` object of docs/branding.md's example, exactly as documented.
    static var acme: String {
        get throws {
            let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("docs/branding.md")
            let text = try String(contentsOf: docs, encoding: .utf8)
            let block = try #require(text.range(of: #"(?s)(?<=```json\n).*?(?=```)"#, options: .regularExpression))
            let example = try #require(try JSONSerialization.jsonObject(with: Data(text[block].utf8)) as? [String: Any])
            return String(decoding: try JSONSerialization.data(withJSONObject: try #require(example["branding"])), as: UTF8.self)
        }
    }

    /// The text a person sees: tags, scripts and styles removed.
    static func visibleText(_ html: String) -> String {
        html.replacingOccurrences(of: #"<script[^>]*>.*?</script>"#, with: " ", options: .regularExpression)
            .replacingOccurrences(of: #"<[^>]+>"#, with: " ", options: .regularExpression)
    }

    static func title(_ html: String) -> String? {
        guard let range = html.range(of: #"(?<=<title>)[^<]*"#, options: .regularExpression) else { return nil }
        return String(html[range])
    }

    @Test func contrastFollowsWCAGDefinition() throws {
        let white = BrandColor.white, black = BrandColor.black
        #expect(white.contrast(with: black) == 21)
        #expect(white.contrast(with: white) == 1)
        // WCAG's own worked values: #767676 is the lightest grey that passes 4.5:1 on white, #777777 fails.
        #expect(try #require(BrandColor(hex: "#767676")).contrast(with: white) >= 4.5)
        #expect(try #require(BrandColor(hex: "#777")).contrast(with: white) < 4.5)
        #expect(BrandColor(hex: "blue") == nil && BrandColor(hex: "#12345") == nil && BrandColor(hex: "#gggggg") == nil)
    }

    @Test(arguments: [("#2456d3", "#f6f7f9", "#1d2433"), ("#0b5cad", "#ffffff", "#1a1a1a"), ("#7cc4ff", "#10141c", "#f2f4f8"),
                      ("#8a1538", "#fffdf7", "#222222")])
    func derivedShadesKeepWCAGContrast(primary: String, background: String, text: String) throws {
        let palette = try BrandPalette(primary: #require(BrandColor(hex: primary)), background: #require(BrandColor(hex: background)),
                                       text: #require(BrandColor(hex: text)))
        #expect(palette.line.contrast(with: palette.background) >= 3, "field borders: WCAG 1.4.11")
        #expect(palette.muted.contrast(with: palette.background) >= 4.5)
        #expect(palette.onPrimary.contrast(with: palette.primary) >= 4.5)
        #expect(palette.line != palette.text, "borders are lighter than the text, not just the text colour")
    }

    @Test(arguments: [
        (##"{"colors": {"text": "#999999", "background": "#ffffff"}}"##, "text on background"),
        (##"{"colors": {"primary": "#ffcc00", "background": "#ffffff", "text": "#000000"}}"##, "links (primary on background)"),
    ])
    func failingPaletteStopsStartUp(branding: String, pair: String) throws {
        #expect {
            _ = try Self.brandedConfiguration(branding)
        } throws: { error in
            let text = "\(error)"
            return (error as? ConfigurationError)?.key == "branding.colors" && text.contains(pair) && text.contains("WCAG 2.2 AA needs")
        }
    }

    @Test func documentedContrastErrorIsTheOneStartUpPrints() throws {
        let docs = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/branding.md"), encoding: .utf8)
        let line = try #require(docs.split(separator: "\n").first { $0.hasPrefix("configuration error: branding.colors:") })
        #expect {
            _ = try Self.brandedConfiguration(##"{"colors": {"text": "#999999", "background": "#ffffff"}}"##)
        } throws: { error in "\(error)" == line }
    }

    @Test(arguments: [
        (##"{"product_name": ""}"##, "branding.product_name"), (##"{"logo": "http://cdn.example/logo.png"}"##, "branding.logo"),
        (##"{"logo": "logo.gif"}"##, "branding.logo"), (##"{"logo": "missing.svg"}"##, "branding.logo"),
        (##"{"extra_css": "missing.css"}"##, "branding.extra_css"), (##"{"colors": {"primary": "red"}}"##, "branding.colors.primary"),
        (##"{"colors": {"accent": "#000000"}}"##, "branding.colors.accent"), (##"{"product": "x"}"##, "branding.product"),
        (##"{"support_links": [{"label": "x", "url": "javascript:alert(1)"}]}"##, "branding.support_links[0]"),
        (##"{"support_links": [{"label": "x", "url": "//evil.example"}]}"##, "branding.support_links[0]"),
    ])
    func badBrandingNamesTheKey(branding: String, key: String) throws {
        #expect {
            _ = try Self.brandedConfiguration(branding)
        } throws: { error in (error as? ConfigurationError)?.key == key }
    }

    @Test func brandedPagesShowTheProductAndNeverGatehouse() async throws {
        let branding = try Self.brandedConfiguration(try Self.acme).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let browser = gatehouse.browser()
        for path in ["/sign-in", "/sign-up", "/password/forgot", "/no-such-page"] {
            let page = try await browser.get(path)
            #expect(Self.title(page.text)?.hasSuffix(" · Acme Cloud") == true, "\(path): \(Self.title(page.text) ?? "no title")")
            #expect(page.text.contains(#"<img src="/assets/logo" alt="Acme Cloud">"#), "\(path)")
            #expect(page.text.contains(#"<link rel="stylesheet" href="/assets/brand.css">"#), "\(path)")
            #expect(page.text.contains(#"<a href="https://acme.example/help">Help centre</a>"#), "\(path)")
            #expect(!Self.visibleText(page.text).contains("Gatehouse"), "\(path)")
            #expect(!page.text.contains("demo-banner"), "\(path): no demo banner outside demo mode")
        }
        let error = try await browser.get("/no-such-page")
        #expect(error.status == 404 && error.text.contains("Back to Acme Cloud"))
    }

    @Test func brandAssetsAreServed() async throws {
        let branding = try Self.brandedConfiguration(try Self.acme).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let browser = gatehouse.browser()
        let logo = try await browser.get("/assets/logo")
        #expect(logo.status == 200 && logo.headers["Content-Type"] == "image/svg+xml" && logo.text.hasPrefix("<svg"))
        #expect(logo.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true, "an opened SVG runs no script")
        let extra = try await browser.get("/assets/brand.css")
        #expect(extra.status == 200 && extra.text == "main { font-family: Georgia; }")
        let css = try await browser.get("/assets/gatehouse.css")
        #expect(css.status == 200 && css.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(css.text.contains("input[type=email]"), "the embedded stylesheet file")
        #expect(css.text.contains("--primary: #0b5cad;") && css.text.contains("--bg: #ffffff;") && css.text.contains("--ink: #1a1a1a;"))
    }

    @Test func withoutBrandingThePagesNameTheHost() async throws {
        let gatehouse = try await TestGatehouse.make()
        let page = try await gatehouse.browser().get("/sign-in")
        #expect(Self.title(page.text) == "Sign in · 127.0.0.1")
        #expect(!Self.visibleText(page.text).contains("Gatehouse"))
        #expect(try await gatehouse.browser().get("/assets/logo").status == 404)
        #expect(try await gatehouse.browser().get("/assets/brand.css").status == 404)
    }

    @Test func demoBannerOnlyInDemoMode() async throws {
        let demo = try await TestGatehouse.make { $0.demo = true }
        #expect(try await demo.browser().get("/sign-in").text.contains(#"class="demo-banner""#))
        let plain = try await TestGatehouse.make()
        #expect(!(try await plain.browser().get("/sign-in").text.contains("demo-banner")))
    }

    @Test func remoteLogoIsAllowedByTheContentSecurityPolicy() async throws {
        let branding = try Self.brandedConfiguration(##"{"logo": "https://cdn.acme.example:8443/logo.svg"}"##).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let page = try await gatehouse.browser().get("/sign-in")
        #expect(page.text.contains(#"<img src="https://cdn.acme.example:8443/logo.svg" alt="127.0.0.1">"#))
        #expect(page.headers["Content-Security-Policy"]?.contains("img-src 'self' https://cdn.acme.example:8443") == true)
    }
}
