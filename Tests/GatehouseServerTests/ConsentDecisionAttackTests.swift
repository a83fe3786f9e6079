import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Attacks on `/oauth/authorize`: every form is submitted as a browser submits the *rendered* page
/// (tree order, only the clicked submitter), never as a hand-built body.
@Suite struct ConsentDecisionAttackTests {
    static let partner = [("response_type", "code"), ("client_id", "partner"), ("redirect_uri", "https://partner.example.test/cb"),
                          ("scope", "openid email"), ("state", "p1")]

    // Item 1: a client adds `&decision=allow` to its authorize URL; the user clicks Deny.
    @Test func denyOnTheRenderedFormDeniesWhateverTheURLCarried() async throws {
        let oauth = try await OAuthFixture.make()
        let page = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner + [("decision", "allow")]).encoded)
        #expect(page.status == 200)
        let form = try #require(HTMLFormSubmission(page.text, action: "/oauth/authorize/decision"))
        #expect(Set(form.controls.map(\.name)) == ["csrf_token", "request", "decision"], "no client parameter is reflected into the form")
        let denied = try await oauth.decide(page, "deny")
        let location = try #require(denied.headers["Location"])
        #expect(location.contains("error=access_denied") && !location.contains("code="))
        #expect(try await oauth.gatehouse.database.consents.find(userId: try #require(try await oauth.gatehouse.database.users
            .find(email: "ada@example.com")).id, clientId: "partner") == nil)
    }

    // Item 1: exactly one decision; the parked request is single use and bound to the session it was shown to.
    @Test func duplicateUnknownReplayedAndForeignDecisionsAre400() async throws {
        let oauth = try await OAuthFixture.make()
        let page = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner).encoded)
        let form = try #require(HTMLFormSubmission(page.text, action: "/oauth/authorize/decision"))
        let allow = try #require(form.fields(clicking: "decision", value: "allow"))
        let twice = try await oauth.browser.post(form.action, allow + [("decision", "deny")])
        #expect(twice.status == 400)
        let unknown = try await oauth.browser.post(form.action, allow.map { $0.0 == "decision" ? ($0.0, "maybe") : $0 })
        #expect(unknown.status == 400)
        // Another signed-in user replaying the victim's form (with their own CSRF token) gets nothing.
        let mallory = try await oauth.gatehouse.signedUpBrowser(email: "mallory@example.com", ip: "10.0.0.66")
        let theirPage = try await mallory.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner).encoded)
        let theirCSRF = try #require(HTMLFormSubmission(theirPage.text, action: "/oauth/authorize/decision")?
            .controls.first { $0.name == "csrf_token" }?.value)
        let foreign = try await mallory.post(form.action, allow.map { $0.0 == "csrf_token" ? ($0.0, theirCSRF) : $0 })
        #expect(foreign.status == 400 && foreign.headers["Location"] == nil)
        // The victim's own request was spent by that attempt; the page says so instead of issuing a code.
        let late = try await oauth.browser.post(form.action, allow)
        #expect(late.status == 400)
        // A fresh page works, once.
        let fresh = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: Self.partner).encoded)
        let granted = try await oauth.decide(fresh, "allow")
        #expect(granted.headers["Location"]?.hasPrefix("https://partner.example.test/cb?code=") == true)
        let again = try await oauth.decide(fresh, "allow")
        #expect(again.status == 400, "a decision is single use")
    }

    // Item 3: a public client on a custom scheme or loopback always gets an explicit step, even first-party,
    // even after it was allowed before; confidential clients and claimed https redirects do not.
    @Test func unassuredClientsAlwaysConfirmAssuredOnesDoNot() async throws {
        let oauth = try await OAuthFixture.make()
        let verifier = PKCE.generateVerifier()
        for redirect in ["com.example.app:/callback", "http://127.0.0.1:50123/callback"] {
            let parameters = [("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", redirect),
                              ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]
            for round in 1...2 {
                let page = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: parameters).encoded)
                #expect(page.status == 200 && page.text.contains("Continue to <strong>Native App</strong> as <strong>ada@example.com</strong>?"),
                        "round \(round) for \(redirect)")
                let decided = try await oauth.decide(page, "allow")
                #expect(decided.headers["Location"]?.hasPrefix(redirect + "?code=") == true)
            }
            let silent = try await oauth.authorize(parameters + [("prompt", "none")])
            #expect(silent.query["error"] == "interaction_required" && silent.query["code"] == nil)
        }
        let confidential = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect)])
        #expect(confidential.status == 303 && confidential.query["code"] != nil)
        _ = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "spa", name: "SPA", kind: .public, redirectURIs: ["https://spa.example.test/cb"], firstParty: true))
        let claimed = try await oauth.authorize([("response_type", "code"), ("client_id", "spa"), ("redirect_uri", "https://spa.example.test/cb"),
                                                 ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")])
        #expect(claimed.status == 303 && claimed.query["code"] != nil)
    }

    // Item 9: max_age=0 forces one fresh sign-in, then continues (time passes between the steps).
    @Test func maxAgeZeroAsksOnceThenContinues() async throws {
        let oauth = try await OAuthFixture.make()
        oauth.gatehouse.clock.advance(30)
        let first = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect),
                                               ("max_age", "0"), ("state", "m0")])
        let signIn = try #require(first.location)
        #expect(signIn.hasPrefix("/sign-in?"))
        let returnTo = try #require(URLComponents(string: signIn)?.queryItems?.first { $0.name == "return_to" }?.value)
        oauth.gatehouse.clock.advance(2)
        let signedIn = try await oauth.browser.submit(signIn, to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery"),
                                                                              ("return_to", returnTo)])
        #expect(signedIn.headers["Location"] == returnTo)
        oauth.gatehouse.clock.advance(2)
        let back = OAuthFixture.outcome(try await oauth.browser.get(returnTo))
        #expect(back.query["code"] != nil && back.query["state"] == "m0", "no second trip to sign-in: \(back.location ?? "")")
    }

    // Item 16: a valid request with a long state keeps its way back through sign-in.
    @Test func longStateSurvivesSignIn() async throws {
        let oauth = try await OAuthFixture.make()
        let stranger = oauth.gatehouse.browser(ip: "10.9.9.8")
        let state = String(repeating: "s", count: 2000)
        let first = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect),
                                               ("state", state)], browser: stranger)
        let signIn = try #require(first.location)
        let returnTo = try #require(URLComponents(string: signIn)?.queryItems?.first { $0.name == "return_to" }?.value)
        let signedIn = try await stranger.submit(signIn, to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery"),
                                                                          ("return_to", returnTo)])
        #expect(signedIn.headers["Location"] == returnTo)
        let back = OAuthFixture.outcome(try await stranger.get(returnTo))
        #expect(back.query["code"] != nil && back.query["state"] == state)
    }

    // Item 18: an access token is not an id_token_hint (it names the same subject).
    @Test func idTokenHintAcceptsOnlyIDTokens() async throws {
        let oauth = try await OAuthFixture.make()
        let base = [("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect), ("scope", "openid")]
        let code = try #require(try await oauth.authorize(base).query["code"])
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)],
                                           basic: ("web-app", oauth.confidentialSecret))
        let access = try #require(tokens.json["access_token"] as? String)
        let idToken = try #require(tokens.json["id_token"] as? String)
        let withAccess = try await oauth.authorize(base + [("id_token_hint", access)])
        #expect(withAccess.query["code"] == nil && withAccess.location?.hasPrefix("/sign-in?") == true)
        let silent = try await oauth.authorize(base + [("id_token_hint", access), ("prompt", "none")])
        #expect(silent.query["error"] == "login_required")
        let withID = try await oauth.authorize(base + [("id_token_hint", idToken)])
        #expect(withID.query["code"] != nil)
        // Logout: an access token as hint is refused instead of signing out without asking.
        let logout = try await oauth.browser.get("/oauth/logout?" + URLEncodedForm(pairs: [("id_token_hint", access)]).encoded)
        #expect(logout.status == 400)
        #expect(try await oauth.browser.get("/account").status == 200, "still signed in")
    }
}
