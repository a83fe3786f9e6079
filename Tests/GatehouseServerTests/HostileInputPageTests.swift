import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Whatever a visitor, an account, a client registration or a provider puts into a page
/// comes out escaped. Each page is fetched (or its form submitted) the way a browser does, with a payload
/// in every field the page echoes; the raw payload must never appear, its escaped form must.
@Suite struct HostileInputPageTests {
    static let payload = #""><script>alert(1)</script>"#
    static let escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"

    static func expectEscaped(_ page: TestResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!page.text.contains("<script>alert(1)"), "\(what): the payload is rendered raw", sourceLocation: sourceLocation)
        #expect(page.text.contains(escaped), "\(what): the payload is not shown escaped (\(page.status))", sourceLocation: sourceLocation)
    }

    @Test func signInAndSignUpPagesEscapeWhatTheyEcho() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = gatehouse.browser()
        Self.expectEscaped(try await browser.get("/sign-in?" + URLEncodedForm(pairs: [("login_hint", Self.payload)]).encoded), "sign-in login_hint")
        // A refused sign-up shows the form again with what was typed.
        let signUp = try await browser.submit("/sign-up", to: "/sign-up", [("email", Self.payload), ("name", Self.payload), ("password", "x")])
        #expect(signUp.status >= 400)
        Self.expectEscaped(signUp, "sign-up form echo")
        // A refused sign-in echoes the email it was given.
        let signIn = try await browser.submit("/sign-in", to: "/sign-in", [("email", Self.payload), ("password", "wrong password!")])
        Self.expectEscaped(signIn, "sign-in form echo")
    }

    @Test func accountConsentAndLogoutPagesEscapeNamesAndParameters() async throws {
        let oauth = try await OAuthFixture.make()
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        _ = try await oauth.gatehouse.database.users.update(id: user.id, [.displayName(Self.payload)], at: Date())
        Self.expectEscaped(try await oauth.browser.get("/account"), "account page display name")

        // A client whose registered name is hostile: the consent page and, once allowed, the account page's apps.
        let (client, _) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "hostile", name: Self.payload, kind: .confidential, redirectURIs: ["https://hostile.example.test/cb"]))
        let consent = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: [
            ("response_type", "code"), ("client_id", client.id), ("redirect_uri", "https://hostile.example.test/cb"), ("scope", "openid"),
            ("state", "s")]).encoded)
        #expect(consent.status == 200)
        Self.expectEscaped(consent, "consent page client name")
        let decided = try await oauth.decide(consent, "allow")
        #expect(decided.status == 302 || decided.status == 303)
        Self.expectEscaped(try await oauth.browser.get("/account"), "account page application name")

        // RP-initiated logout without a hint asks first, carrying the parameters in hidden fields.
        let logout = try await oauth.browser.get("/oauth/logout?" + URLEncodedForm(pairs: [("state", Self.payload)]).encoded)
        #expect(logout.status == 200)
        Self.expectEscaped(logout, "logout confirmation state")
    }

    @Test func errorPagesEscapeTheirMessage() async throws {
        let gatehouse = try await TestGatehouse.make()
        // An oversized field: the message names the field, which comes from the form's own key set (fixed);
        // the page must still be HTML with the request id escaped and no raw markup from the request.
        let browser = gatehouse.browser()
        let page = try await browser.submit("/sign-in", to: "/sign-in", [("email", String(repeating: "<", count: 400)), ("password", "p")])
        #expect(page.status == 413)
        #expect(!page.text.contains("<<"), "nothing from the request is rendered raw")
    }
}
