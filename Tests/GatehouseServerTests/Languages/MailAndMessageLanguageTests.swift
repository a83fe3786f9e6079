import Foundation
@testable import GatehouseServer
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseTesting
import Testing

/// The words Gatehouse adds outside the pages' own: the HTML mail's language and button, the bridge script's
/// messages (handed over by the provider forms) and error sentences raised below the pages, in the reader's language.
@Suite struct MailAndMessageLanguageTests {
    static func headers(_ language: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.set("Accept-Language", language)
        return headers
    }

    @Test func theHTMLPartIsInTheMailsLanguageAndDirection() {
        let mailer = BrandedMailer(inner: RecordingMailer(), branding: Branding(productName: "Acme"),
                                   publicURL: URL(string: "https://id.acme.example")!)
        let arabic = mailer.branded(MailMessage(to: "a@example.com", subject: "s", textBody: "مرحبا\n\nhttps://id.acme.example/x\n",
                                                language: "ar"))
        let html = arabic.htmlBody ?? ""
        #expect(html.contains(#"<html lang="ar" dir="rtl">"#))
        #expect(html.contains(">\(Languages.builtIn.texts("ar")["mail.open_link"])</a>") && !html.contains("Open the link"))
        #expect(html.contains(#"<a href="https://id.acme.example/x" dir="ltr""#), "the address stays left to right in Arabic")
        #expect(arabic.language == "ar")
        // A mail that names no language is in the configured default, and says so.
        var branding = Branding(productName: "Acme")
        branding.defaultLanguage = "de"
        let german = BrandedMailer(inner: RecordingMailer(), branding: branding, publicURL: URL(string: "https://id.acme.example")!)
            .branded(MailMessage(to: "a@example.com", subject: "s", textBody: "https://id.acme.example/x\n"))
        #expect(german.language == "de" && german.htmlBody?.contains(#"<html lang="de" dir="ltr">"#) == true)
        #expect(german.htmlBody?.contains(">Link öffnen</a>") == true)
    }

    @Test func addressesInsideAWordOrBeforePunctuationAreLinkedWithoutIt() {
        let japanese = BrandedMailer.linkified("ご本人の場合は、https://id.example/sign-in でサインイン（https://id.example/forgot）。", color: "#000")
        #expect(japanese.text.contains(#"ご本人の場合は、<a href="https://id.example/sign-in" dir="ltr" style="color:#000">https://id.example/sign-in</a> で"#))
        #expect(japanese.text.contains(#"（<a href="https://id.example/forgot" dir="ltr" style="color:#000">https://id.example/forgot</a>）。"#))
        let arabic = BrandedMailer.linkified("افتح https://id.example/x، ثم", color: "#000")
        #expect(arabic.text.contains(#">https://id.example/x</a>، ثم"#))
        #expect(BrandedMailer.linkified("no <b>link</b> here", color: "#000").text == "no &lt;b&gt;link&lt;/b&gt; here")
    }

    @Test func catalogueMailsNameTheirLanguageAndTemplatedOnesTheDefault() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser(verify: false)
        _ = await gatehouse.mailer.link(to: "ada@example.com", containing: "/email/verify/")   // mail goes out in the background
        let mail = try #require(gatehouse.mailer.sent.all.last { $0.to == "ada@example.com" })
        #expect(mail.language == "en" && mail.htmlBody?.contains(#"<html lang="en" dir="ltr">"#) == true)

        let branding = try TemplateOverrideTests.configuration(["mails/verifyEmail.txt": "Subject: Willkommen\n\nBitte: {{link}}\n"],
                                                               branding: #""product_name": "Acme", "default_language": "de""#).branding
        let templated = try await TestGatehouse.make { $0.branding = branding }
        _ = try await templated.signedUpBrowser(verify: false)
        _ = await templated.mailer.link(to: "ada@example.com", containing: "/email/verify/")
        let worded = try #require(templated.mailer.sent.all.last { $0.to == "ada@example.com" })
        #expect(worded.subject == "Willkommen" && worded.language == "de")
    }

    @Test func providerFormsCarryTheBridgeScriptsWordsInThePagesLanguage() async throws {
        let gatehouse = try await TestGatehouse.make { $0.demo = true }
        let page = try await gatehouse.browser().send(.get, "/sign-in", headers: Self.headers("ja"), body: [])
        let t = Languages.builtIn.texts("ja")
        #expect(page.text.contains(#"<form method="post" action="/auth/google" class="provider" data-sign-in-incomplete="\#(t["bridge.sign_in_incomplete"])" data-link-failed="\#(t["bridge.link_failed"])">"#))
        // The script holds no sentence of its own any more: it shows the page's, or the app's own description.
        let script = try await gatehouse.browser().get("/assets/gatehouse-bridge.js")
        #expect(script.text.contains("form.dataset.signInIncomplete") && script.text.contains("form.dataset.linkFailed"))
        #expect(!script.text.contains("Signing in did not complete") && !script.text.contains("Linking could not start"))
    }

    @Test func aLinkTicketRefusalIsInTheWebViewsLanguage() async throws {
        let gatehouse = try await NativeHandoffTests.gatehouse()
        let webView = try await gatehouse.signedUpBrowser(email: "linker@example.com")
        let account = try await webView.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: account.text))
        var headers = Self.headers("fr")
        headers.set("Origin", NativeHandoffTests.base)
        let refused = try await webView.post("/native/link-ticket", [("csrf_token", csrf), ("app", "no-such-app"),
                                                                     ("challenge", PKCE.challenge(for: PKCE.generateVerifier()))],
                                             headers: headers)
        #expect(refused.status == 400)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: String])
        #expect(body["error"] == "invalid_client")
        #expect(body["error_description"] == Languages.builtIn.texts("fr")["message.app_not_registered"])
    }

    @Test func errorPagesTranslateSentencesThatCarryAWord() async throws {
        let gatehouse = try await TestGatehouse.make()
        let page = try await gatehouse.browser().send(.put, "/sign-in", headers: Self.headers("de"), body: [])
        #expect(page.status == 405)
        #expect(page.text.contains("<h1>\(Languages.builtIn.texts("de")["status.405"])</h1>"))
        #expect(page.text.contains("Diese Adresse nimmt kein PUT an."), "\(page.text.prefix(900))")
        // A sign-in page without its client's redirect URI: the repeated parameter is named in Spanish.
        let repeated = try await gatehouse.browser().send(.get, "/oauth/authorize?client_id=a&client_id=b", headers: Self.headers("es"), body: [])
        #expect(repeated.status == 400 && repeated.text.contains("El parámetro client_id aparece más de una vez."), "\(repeated.text.prefix(900))")
    }
}
