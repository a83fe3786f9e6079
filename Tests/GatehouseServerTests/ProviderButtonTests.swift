import Foundation
import GatehouseServer
import GatehouseTesting
import Testing

@Suite struct ProviderButtonTests {
    @Test func buttonsUseTheApprovedWordingAndOneStyleClass() async throws {
        let gatehouse = try await TestGatehouse.make { $0.demo = true }
        let page = try await gatehouse.browser().get("/sign-in")
        // Demo mode labels them "Apple (simulated)" and so on; the words start the same.
        for (id, label) in [("apple", "Apple"), ("google", "Google"), ("github", "GitHub")] {
            #expect(page.text.contains(#"<button type="submit" class="provider-button provider-\#(id)">Sign in with \#(label)"#),
                    "\(id)")
        }
    }

    @Test func coloursFollowTheProvidersThemesForTheBackground() async throws {
        let light = try await TestGatehouse.make { $0.demo = true }
        let lightCSS = try await light.browser().get("/assets/gatehouse.css").text
        #expect(lightCSS.contains("--apple-bg: #000000; --apple-ink: #ffffff;"), "Apple's black style on a light page")
        #expect(lightCSS.contains("--google-bg: #ffffff; --google-ink: #1f1f1f; --google-line: #747775;"), "Google's light theme")
        #expect(!lightCSS.contains("--mark:"), "no marks unless the operator supplies them")

        let branding = try BrandingTests.brandedConfiguration(##"{"colors": {"primary": "#7cc4ff", "background": "#10141c", "text": "#f2f4f8"}}"##).branding
        let dark = try await TestGatehouse.make { $0.demo = true; $0.branding = branding }
        let darkCSS = try await dark.browser().get("/assets/gatehouse.css").text
        #expect(darkCSS.contains("--apple-bg: #ffffff; --apple-ink: #000000;"), "Apple's white style on a dark page")
        #expect(darkCSS.contains("--google-bg: #131314; --google-ink: #e3e3e3; --google-line: #8e918f;"), "Google's dark theme")
    }

    @Test func operatorSuppliedMarksAreServedAndDrawn() async throws {
        // brandedConfiguration writes acme.svg beside the configuration file; it stands in for a provider's file.
        let branding = try BrandingTests.brandedConfiguration(#"{"provider_marks": {"apple": "acme.svg"}}"#).branding
        let gatehouse = try await TestGatehouse.make { $0.demo = true; $0.branding = branding }
        let browser = gatehouse.browser()
        let mark = try await browser.get("/assets/marks/apple")
        #expect(mark.status == 200 && mark.headers["Content-Type"] == "image/svg+xml" && mark.text.hasPrefix("<svg"))
        #expect(try await browser.get("/assets/marks/google").status == 404)
        let css = try await browser.get("/assets/gatehouse.css").text
        #expect(css.contains(".provider-apple { --mark: url(/assets/marks/apple); }"))
        #expect(!css.contains(".provider-google { --mark"))
    }

    @Test(arguments: [(#"{"provider_marks": {"apple": "https://apple.example/logo.svg"}}"#, "branding.provider_marks.apple"),
                      (#"{"provider_marks": {"apple": "missing.svg"}}"#, "branding.provider_marks.apple"),
                      (#"{"provider_marks": {"a/b": "acme.svg"}}"#, "branding.provider_marks.a/b"),
                      (#"{"provider_marks": ["acme.svg"]}"#, "branding.provider_marks")])
    func badMarksNameTheKey(branding: String, key: String) throws {
        #expect {
            _ = try BrandingTests.brandedConfiguration(branding)
        } throws: { error in (error as? ConfigurationError)?.key == key }
    }
}
