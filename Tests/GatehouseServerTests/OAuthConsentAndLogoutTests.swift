import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseTesting
import Testing

@Suite struct OAuthConsentAndLogoutTests {
    static let partner = [("response_type", "code"), ("client_id", "partner"), ("redirect_uri", "https://partner.example.test/cb"),
                          ("scope", "openid email"), ("state", "p1")]

    @Test func thirdPartyClientsNeedConsentWhichIsRemembered() async throws {
        let oauth = try await OAuthFixture.make()
        let page = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner).encoded)
        #expect(page.status == 200 && page.text.contains("Allow Partner Tool?") && page.text.contains("see your email address"))
        let none = try await oauth.authorize(Self.partner + [("prompt", "none")])
        #expect(none.query["error"] == "consent_required")
        let allow = try await oauth.decide(page, "allow")
        #expect(allow.headers["Location"]?.hasPrefix("https://partner.example.test/cb?code=") == true)
        let again = try await oauth.authorize(Self.partner)
        #expect(again.query["code"] != nil, "consent is remembered")
        let forced = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner + [("prompt", "consent")]).encoded)
        #expect(forced.status == 200 && forced.text.contains("Allow Partner Tool?"))
        let wider = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: [("response_type", "code"), ("client_id", "partner"),
            ("redirect_uri", "https://partner.example.test/cb"), ("scope", "openid email profile")]).encoded)
        #expect(wider.status == 200, "more scopes need consent again")
        #expect(try await oauth.gatehouse.auditTypes(email: "ada@example.com").contains("consent.granted"))
    }

    @Test func denyingConsentRedirectsWithAccessDenied() async throws {
        let oauth = try await OAuthFixture.make()
        let page = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner).encoded)
        let form = try #require(HTMLFormSubmission(page.text, action: "/oauth/authorize/decision"))
        let deny = try await oauth.decide(page, "deny")
        let location = try #require(deny.headers["Location"])
        #expect(location.contains("error=access_denied") && location.contains("state=p1"))
        let withoutCSRF = (form.fields(clicking: "decision", value: "allow") ?? []).filter { $0.0 != "csrf_token" }
        let forged = try await oauth.browser.post("/oauth/authorize/decision", withoutCSRF)
        #expect(forged.status == 403, "a decision without the CSRF token is refused")
    }

    @Test func accountPageListsAndRevokesApplications() async throws {
        let oauth = try await OAuthFixture.make()
        let (code, verifier) = try await oauth.publicCode()
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                            ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)])
        let account = try await oauth.browser.get("/account")
        #expect(account.text.contains("Native App"))
        let revoke = try await oauth.browser.submit("/account", to: "/account/apps/native-app/revoke", [])
        #expect(revoke.headers["Location"] == "/account?notice=app-revoked")
        let refresh = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", tokens.json["refresh_token"] as! String),
                                             ("client_id", "native-app")])
        #expect(refresh.json["error"] as? String == "invalid_grant")
        let access = tokens.json["access_token"] as! String
        #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"]).status == 401)
        #expect(!(try await oauth.browser.get("/account")).text.contains("Native App"))
    }

    @Test func rpInitiatedLogoutWithHintAndRegisteredRedirect() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        let hint = try #require(tokens.json["id_token"] as? String)
        let unregistered = try await oauth.browser.get("/oauth/logout?" + URLEncodedForm(pairs: [("id_token_hint", hint),
            ("post_logout_redirect_uri", "https://evil.example/")]).encoded)
        #expect(unregistered.status == 400)
        #expect(try await oauth.browser.get("/account").status == 200, "still signed in")
        let logout = try await oauth.browser.get("/oauth/logout?" + URLEncodedForm(pairs: [("id_token_hint", hint),
            ("post_logout_redirect_uri", "https://app.example.test/bye"), ("state", "bye1")]).encoded)
        #expect(logout.headers["Location"] == "https://app.example.test/bye?state=bye1")
        #expect(try await oauth.browser.get("/account").status == 303, "the session ended")
    }

    @Test func logoutWithoutHintAsksForConfirmation() async throws {
        let oauth = try await OAuthFixture.make()
        let page = try await oauth.browser.get("/oauth/logout")
        #expect(page.status == 200 && page.text.contains("Sign out?"))
        #expect(try await oauth.browser.get("/account").status == 200)
        let confirmed = try await oauth.browser.submit("/oauth/logout", to: "/oauth/logout", [("confirm", "yes")])
        #expect(confirmed.status == 303)
        #expect(try await oauth.browser.get("/account").status == 303)
        let garbage = try await oauth.browser.get("/oauth/logout?id_token_hint=not.a.jwt")
        #expect(garbage.status == 400)
    }
}
