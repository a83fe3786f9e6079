import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseTesting
import Testing

/// Flow F2 in-process: the "system browser" and the "web view" are two cookie jars on one server,
/// with the provider simulator mounted (demo mode). Forms are submitted as rendered.
@Suite struct NativeHandoffTests {
    static let base = "http://127.0.0.1:8080"

    static func gatehouse(_ tweak: @escaping (inout GatehouseConfiguration) -> Void = { _ in }) async throws -> TestGatehouse {
        let gatehouse = try await TestGatehouse.make { $0.demo = true; tweak(&$0) }
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "demo-app", name: "Demo App", kind: .public, redirectURIs: ["com.example.demo:/oauth"], firstParty: true,
            metadata: #"{"callback_schemes": ["demoapp"], "bundle_ids": ["com.example.demo"], "callback_urls": ["https://app.example/auth/native/callback"]}"#))
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "other-native", name: "Other App", kind: .public, redirectURIs: ["com.example.other:/oauth"], firstParty: true,
            metadata: #"{"callback_schemes": ["otherapp"]}"#))
        return gatehouse
    }

    enum Confirm { case yes, no, leave }

    /// Follows a browser through start → Google (simulated picker) → callback → finish → "Continue to …?";
    /// returns the final Location (or the confirmation page's text with `.leave`).
    static func systemBrowserSignIn(_ gatehouse: TestGatehouse, app: String = "demo-app", challenge: String,
                                    email: String = "native@example.com", returnTo: String? = nil, cancel: Bool = false,
                                    confirm: Confirm = .yes, extra: String = "",
                                    browser given: BrowserLikeClient? = nil) async throws -> String {
        let browser = given ?? gatehouse.browser(ip: "198.51.100.20")
        var start = "/native/start?provider=google&app=\(app)&challenge=\(challenge)" + extra
        if let returnTo { start += "&return_to=" + PercentDecoding.encode(returnTo) }
        let page = try await browser.get(start)
        guard page.status == 200 else { return "status \(page.status)" }
        var response = try await browser.post(try #require(HTMLForm.formAction(page.text)), HTMLForm.hiddenFields(page.text))
        guard response.status == 303 else { return "status \(response.status)" }
        var location = response.headers["Location"] ?? ""
        // The simulated Google picker: GET the authorize URL, POST its form back with an account.
        let authorize = try await browser.get(String(location.dropFirst(base.count)))
        let action = try #require(authorize.text.firstMatch(of: /action="([^"]+)"/).map { String($0.1) })
        let picker = HTMLForm.hiddenFields(authorize.text) + [("email", email), ("name", "Native User"), ("action", cancel ? "cancel" : "allow")]
        response = try await browser.post(action.hasPrefix("http") ? String(action.dropFirst(base.count)) : action, picker)
        location = response.headers["Location"] ?? ""
        // Back at Gatehouse: callback, then finish in the same browser.
        for _ in 0..<4 where location.hasPrefix(base) || location.hasPrefix("/auth/") {
            response = try await browser.get(location.hasPrefix(base) ? String(location.dropFirst(base.count)) : location)
            location = response.headers["Location"] ?? "status \(response.status)"
        }
        guard response.status == 200, response.text.contains(#"action="/native/confirm""#) else { return location }
        switch confirm {
        case .leave: return response.text
        case .yes, .no:
            let answer = try await browser.post("/native/confirm", HTMLForm.hiddenFields(response.text) + [("decision", confirm == .yes ? "continue" : "cancel")])
            return answer.headers["Location"] ?? "status \(answer.status)"
        }
    }

    static func token(from callback: String) -> String? {
        URLComponents(string: callback)?.queryItems?.first { $0.name == "token" }?.value
    }

    /// What the app's web view does with a hand-off token: visit the redeem page, post its form with the
    /// verifier it holds (as the bridge script does), from this origin.
    static func redeem(_ webView: BrowserLikeClient, token: String, verifier: String, app: String? = nil,
                       origin: String = base) async throws -> TestResponse {
        let page = try await webView.get("/native/redeem?token=\(token)" + (app.map { "&app=\($0)" } ?? ""))
        #expect(page.status == 200 && page.text.contains("data-gatehouse-redeem"))
        let fields = HTMLForm.hiddenFields(page.text).map { $0.0 == "verifier" ? ($0.0, verifier) : $0 }
        var headers = HTTPHeaders()
        headers.set("Origin", origin)
        return try await webView.post("/native/redeem", fields, headers: headers)
    }

    @Test func handOffFromSystemBrowserToWebView() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier), returnTo: "/account")
        #expect(callback.hasPrefix("demoapp://auth-callback?token="), "ends at the app's scheme: \(callback)")
        let token = try #require(Self.token(from: callback))
        let webView = gatehouse.browser(ip: "198.51.100.21")
        #expect(try await webView.get("/native/session").status == 401)
        let redeem = try await Self.redeem(webView, token: token, verifier: verifier, app: "demo-app")
        #expect(redeem.status == 303 && redeem.headers["Location"] == "/account")
        #expect(try await webView.get("/account").status == 200, "the web view is signed in")
        let status = try await webView.get("/native/session")
        #expect(status.status == 200 && status.text.contains("native@example.com") && status.text.contains("google"))
        let signOut = try await webView.send(.post, "/native/sign-out", headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(signOut.status == 200 && signOut.text.contains("gatehouse_session"))
        #expect(try await webView.get("/native/session").status == 401)
    }

    @Test func theRedeemContinuesThePendingAuthorize() async throws {
        let gatehouse = try await Self.gatehouse()
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "rails", name: "Rails", kind: .confidential, redirectURIs: ["http://127.0.0.1:8080/users/auth/callback"], firstParty: true))
        let verifier = PKCE.generateVerifier()
        let pkce = PKCE.challenge(for: PKCE.generateVerifier())
        let authorize = "/oauth/authorize?response_type=code&client_id=rails&redirect_uri=\(PercentDecoding.encode("http://127.0.0.1:8080/users/auth/callback"))&scope=openid&state=s1&code_challenge=\(pkce)&code_challenge_method=S256"
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier), returnTo: authorize)
        let webView = gatehouse.browser(ip: "198.51.100.21")
        let redeem = try await Self.redeem(webView, token: try #require(Self.token(from: callback)), verifier: verifier)
        #expect(redeem.headers["Location"] == authorize, "the redeem continues the product's pending authorize")
        let code = try await webView.get(authorize)
        #expect(code.status == 303 || code.status == 302)
        #expect(code.headers["Location"]?.hasPrefix("http://127.0.0.1:8080/users/auth/callback?code=") == true, "\(code.headers["Location"] ?? "")")
    }

    @Test func theProductsProviderHintReachesTheSignInPage() async throws {
        let gatehouse = try await Self.gatehouse()
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "rails", name: "Rails", kind: .confidential, redirectURIs: ["http://127.0.0.1:8080/users/auth/callback"], firstParty: true))
        let pkce = PKCE.challenge(for: PKCE.generateVerifier())
        let base = "/oauth/authorize?response_type=code&client_id=rails&redirect_uri=\(PercentDecoding.encode("http://127.0.0.1:8080/users/auth/callback"))&scope=openid&state=s1&code_challenge=\(pkce)&code_challenge_method=S256"
        // In the app the provider must not open in the web view: the sign-in page gets the hint (the bridge starts it).
        let appUA = "Mozilla/5.0 (iPhone) Gatehouse-App/demo-app Hotwire Native iOS; Turbo Native iOS; bridge-components: [sign-in-with-oauth]"
        let inApp = BrowserLikeClient(InProcessClient(gatehouse.app.pipeline), userAgent: appUA)
        let hinted = try await inApp.get(base + "&provider=google")
        #expect(hinted.headers["Location"]?.hasPrefix("/sign-in?return_to=") == true && hinted.headers["Location"]?.hasSuffix("&provider=google") == true,
                "\(hinted.headers["Location"] ?? "")")
        // On the web the hint goes straight to the provider.
        let web = try await gatehouse.browser().get(base + "&provider=google")
        #expect(web.headers["Location"]?.contains("/_sim/google/") == true, "\(web.headers["Location"] ?? "")")
    }

    @Test func aCustomSchemeHandoffWaitsForTheUsersContinue() async throws {
        let gatehouse = try await Self.gatehouse()
        let challenge = PKCE.challenge(for: PKCE.generateVerifier())
        // The page asks, names the app and the account, and carries no hand-off token.
        let page = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, confirm: .leave)
        #expect(page.contains("Continue to Demo App?") && page.contains("native@example.com"))
        #expect(!page.contains("demoapp://") && !page.contains("token="))
        // Cancel goes back to the app as an error.
        let cancelled = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, confirm: .no)
        #expect(cancelled.hasPrefix("demoapp://auth-callback?error=access_denied"), "\(cancelled)")

        // Another browser cannot answer the question (the flow cookie binds it), nor can a replay.
        let browser = gatehouse.browser(ip: "198.51.100.30")
        let question = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, confirm: .leave, browser: browser)
        let fields = HTMLForm.hiddenFields(question)
        let thief = gatehouse.browser(ip: "203.0.113.9")
        let thiefPage = try await thief.get("/sign-in")
        let stolen = fields.map { $0.0 == "csrf_token" ? ($0.0, BrowserLikeClient.hiddenField("csrf_token", in: thiefPage.text) ?? "") : $0 }
        let refused = try await thief.post("/native/confirm", stolen + [("decision", "continue")])
        #expect(refused.status == 403 && refused.headers["Location"] == nil)
        let replay = try await browser.post("/native/confirm", fields + [("decision", "continue")])
        #expect(replay.status == 400 && replay.headers["Location"] == nil, "the question was spent by the first answer")

        // Exactly one decision: a smuggled second value is refused, not read first-wins.
        let again = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, confirm: .leave, browser: browser)
        let twice = try await browser.post("/native/confirm", HTMLForm.hiddenFields(again) + [("decision", "cancel"), ("decision", "continue")])
        #expect(twice.status == 400 && twice.headers["Location"] == nil)
    }

    @Test func aClaimedHTTPSCallbackNeedsNoQuestion() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier),
                                                          extra: "&callback=" + PercentDecoding.encode("https://app.example/auth/native/callback"))
        #expect(callback.hasPrefix("https://app.example/auth/native/callback?token="), "\(callback)")
        // An https callback the app did not register is refused at the start.
        let unregistered = try await gatehouse.browser().get("/native/start?provider=google&app=demo-app&challenge=\(PKCE.challenge(for: verifier))&callback=https%3A%2F%2Fevil.example%2Fcb")
        #expect(unregistered.status == 400)
    }

    @Test func aRedeemLinkFromSomeoneElseDoesNothing() async throws {
        let gatehouse = try await Self.gatehouse()
        // The attacker runs the flow for their own account and sends the victim the redeem link.
        let attackerVerifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: attackerVerifier),
                                                                                   email: "attacker@example.com")))
        let victim = try await gatehouse.signedUpBrowser(email: "victim@example.com")
        // Opening the link is a page, nothing more.
        let page = try await victim.get("/native/redeem?token=\(token)")
        #expect(page.status == 200 && victim.cookies["gatehouse_session"] != nil)
        #expect(try await victim.get("/native/session").text.contains("victim@example.com"))
        // A cross-site form posting to the redeem (with the attacker's verifier) is refused by Origin and CSRF.
        var foreign = HTTPHeaders()
        foreign.set("Origin", "https://evil.example")
        let crossSite = try await victim.post("/native/redeem", [("token", token), ("verifier", attackerVerifier)], headers: foreign)
        #expect(crossSite.status == 403)
        let nullOrigin = try await victim.post("/native/redeem", [("token", token), ("verifier", attackerVerifier)], headers: ["Origin": "null"])
        #expect(nullOrigin.status == 403, "a no-referrer page's form says Origin: null; refused")
        let noCSRF = try await victim.post("/native/redeem", [("token", token), ("verifier", attackerVerifier)], headers: ["Origin": Self.base])
        #expect(noCSRF.status == 403)
        // The victim's own web view has no verifier for it (or another one): refused, victim still signed in.
        let wrong = try await Self.redeem(victim, token: token, verifier: PKCE.generateVerifier())
        #expect(wrong.status == 400)
        #expect(try await victim.get("/native/session").text.contains("victim@example.com"), "the victim's session was not ended")
        // And HEAD/GET never spend a token.
        let verifier = PKCE.generateVerifier()
        let fresh = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        let webView = gatehouse.browser()
        _ = try await webView.send(.head, "/native/redeem?token=\(fresh)", headers: HTTPHeaders(), body: [])
        _ = try await webView.get("/native/redeem?token=\(fresh)")
        #expect(try await Self.redeem(webView, token: fresh, verifier: verifier).status == 303)
    }

    @Test func redeemingTwiceLateOrWithTheWrongVerifierFails() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        let attacker = gatehouse.browser(ip: "203.0.113.66")
        let wrong = try await Self.redeem(attacker, token: token, verifier: PKCE.generateVerifier())
        #expect(wrong.status == 400 && attacker.cookies["gatehouse_session"] == nil)
        #expect(try await Self.redeem(gatehouse.browser(), token: token, verifier: verifier).status == 400, "a stolen token gets one try")

        let verifier2 = PKCE.generateVerifier()
        let token2 = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier2))))
        #expect(try await Self.redeem(gatehouse.browser(), token: token2, verifier: verifier2).status == 303)
        #expect(try await Self.redeem(gatehouse.browser(), token: token2, verifier: verifier2).status == 400)

        let verifier3 = PKCE.generateVerifier()
        let token3 = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier3))))
        gatehouse.clock.advance(121)
        #expect(try await Self.redeem(gatehouse.browser(), token: token3, verifier: verifier3).status == 400, "expired after 2 minutes")
    }

    /// `native.handoff_ttl_seconds` shortens the hand-off's life (the journey tests expire a token with it).
    @Test func aShorterConfiguredLifetimeExpiresTheToken() async throws {
        let gatehouse = try await Self.gatehouse { $0.handoffLifetime = 5 }
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        gatehouse.clock.advance(6)
        let late = try await Self.redeem(gatehouse.browser(), token: token, verifier: verifier)
        #expect(late.status == 400 && late.text.contains("expired"))
        let verifier2 = PKCE.generateVerifier()
        let token2 = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier2))))
        gatehouse.clock.advance(4)
        #expect(try await Self.redeem(gatehouse.browser(), token: token2, verifier: verifier2).status == 303, "still valid within it")
    }

    @Test func concurrentRedeemsExactlyOneWins() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        // Each web view has its page (and CSRF token) first; then all post at once.
        var prepared: [(BrowserLikeClient, [(String, String)])] = []
        for i in 0..<12 {
            let webView = gatehouse.browser(ip: "10.7.0.\(i)")
            let page = try await webView.get("/native/redeem?token=\(token)")
            prepared.append((webView, HTMLForm.hiddenFields(page.text).map { $0.0 == "verifier" ? ($0.0, verifier) : $0 }))
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (webView, fields) in prepared {
                group.addTask { try await webView.post("/native/redeem", fields, headers: ["Origin": Self.base]).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 303 }.count == 1 && statuses.filter { $0 == 400 }.count == 11)
    }

    @Test func tokenFromAnotherAppAndTamperedChallengeAreRefused() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        #expect(try await Self.redeem(gatehouse.browser(), token: token, verifier: verifier, app: "other-native").status == 400)
        #expect(try await gatehouse.browser().get("/native/start?provider=google&app=demo-app&challenge=short").status == 400)
        #expect(try await gatehouse.browser().get("/native/start?provider=google&app=web-only&challenge=\(PKCE.challenge(for: verifier))").status == 400)
        let browser = gatehouse.browser()
        let page = try await browser.get("/sign-in")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        let direct = try await browser.post("/auth/google", [("csrf_token", csrf), ("platform", "native"), ("app", "evil-app"),
                                                             ("challenge", PKCE.challenge(for: verifier))])
        #expect(direct.status == 400)
    }

    @Test func failuresAreReportedToTheApp() async throws {
        let gatehouse = try await Self.gatehouse()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: PKCE.generateVerifier()), cancel: true)
        #expect(callback.hasPrefix("demoapp://auth-callback?error=cancelled"), "the app learns the sign-in failed: \(callback)")
        #expect(callback.contains("error_description=") && !callback.contains("token="))
        #expect(try await gatehouse.database.users.count() == 0)
        // "An account with this email exists" goes to the app too, not to a page left in the system browser.
        _ = try await gatehouse.signedUpBrowser(email: "taken@example.com")
        let exists = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: PKCE.generateVerifier()), email: "taken@example.com")
        #expect(exists.hasPrefix("demoapp://auth-callback?error=account_exists"), "\(exists)")
    }

    static func linkTicket(_ webView: BrowserLikeClient, csrf: String, challenge: String, origin: String = base) async throws -> TestResponse {
        try await webView.post("/native/link-ticket", [("csrf_token", csrf), ("app", "demo-app"), ("challenge", challenge)],
                               headers: ["Origin": origin])
    }

    static func ticket(in response: TestResponse) throws -> String {
        try #require((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])?["ticket"])
    }

    @Test func linkingAProviderFromTheApp() async throws {
        let gatehouse = try await Self.gatehouse()
        let webView = try await gatehouse.signedUpBrowser(email: "linker@example.com")
        let account = try await webView.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: account.text))
        let verifier = PKCE.generateVerifier()
        let challenge = PKCE.challenge(for: verifier)
        // Without a session, from another origin or without the web view's challenge, no ticket.
        #expect(try await Self.linkTicket(gatehouse.browser(), csrf: csrf, challenge: challenge).status == 401)
        #expect(try await Self.linkTicket(webView, csrf: csrf, challenge: challenge, origin: "https://evil.example").status == 403)
        #expect(try await webView.post("/native/link-ticket", [("csrf_token", csrf), ("app", "demo-app")], headers: ["Origin": Self.base]).status == 400)
        let ticket = try Self.ticket(in: try await Self.linkTicket(webView, csrf: csrf, challenge: challenge))
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, email: "linker.google@example.com",
                                                          extra: "&link=\(ticket)")
        let token = try #require(Self.token(from: callback), "\(callback)")
        let user = try #require(try await gatehouse.database.users.find(email: "linker@example.com"))
        #expect(try await gatehouse.database.externalIdentities.list(userId: user.id).isEmpty, "nothing is linked in the system browser")
        let redeem = try await Self.redeem(webView, token: token, verifier: verifier)
        #expect(redeem.status == 303 && redeem.headers["Location"] == "/account?notice=identity-linked")
        #expect(try await gatehouse.database.externalIdentities.list(userId: user.id).map(\.provider) == ["google"])
        #expect(try await gatehouse.database.users.count() == 1, "linked, not a new account")
        // A ticket is single-use.
        let reused = try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, extra: "&link=\(ticket)")
        #expect(reused == "status 400")
        // A ticket presented with another web view's challenge starts nothing (and is spent).
        let bound = try Self.ticket(in: try await Self.linkTicket(webView, csrf: csrf, challenge: challenge))
        #expect(try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: PKCE.generateVerifier()),
                                                   extra: "&link=\(bound)") == "status 400")
        #expect(try await Self.systemBrowserSignIn(gatehouse, challenge: challenge, extra: "&link=\(bound)") == "status 400")
    }

    /// The link CSRF: the attacker mints a ticket for their own account and sends the victim the start URL.
    /// The victim signs in to their provider in their own browser and answers the question; whichever
    /// answer, and whoever redeems the token in a web view without the attacker's verifier, the victim's
    /// identity is linked nowhere.
    @Test(arguments: [Confirm.yes, .no])
    func aLinkTicketSentToSomeoneElseLinksNothing(_ answer: Confirm) async throws {
        let gatehouse = try await Self.gatehouse()
        let attacker = try await gatehouse.signedUpBrowser(email: "attacker@example.com")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: try await attacker.get("/account").text))
        let attackerVerifier = PKCE.generateVerifier()
        let ticket = try Self.ticket(in: try await Self.linkTicket(attacker, csrf: csrf, challenge: PKCE.challenge(for: attackerVerifier)))
        let victimWebView = try await gatehouse.signedUpBrowser(email: "victim@example.com")
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: attackerVerifier), email: "victim.google@example.com",
                                                          confirm: answer, extra: "&link=\(ticket)")
        let owner = try #require(try await gatehouse.database.users.find(email: "attacker@example.com"))
        #expect(try await gatehouse.database.externalIdentities.list(userId: owner.id).isEmpty)
        if answer == .no {
            #expect(callback.contains("error=access_denied") && Self.token(from: callback) == nil, "\(callback)")
        } else {
            // The victim's own app redeems in the victim's web view, with the verifier it holds: refused, nothing linked.
            let token = try #require(Self.token(from: callback), "\(callback)")
            #expect(try await Self.redeem(victimWebView, token: token, verifier: PKCE.generateVerifier()).status == 400)
        }
        #expect(try await gatehouse.database.externalIdentities.list(userId: owner.id).isEmpty, "the victim's Google is not the attacker's")
        let victim = try #require(try await gatehouse.database.users.find(email: "victim@example.com"))
        #expect(try await gatehouse.database.externalIdentities.list(userId: victim.id).isEmpty)
        #expect(try await gatehouse.database.users.count() == 2, "and no account was made of it")
    }

    @Test func offOriginReturnToIsDropped() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier), returnTo: "https://evil.example/")
        let token = try #require(Self.token(from: callback))
        #expect(try await Self.redeem(gatehouse.browser(), token: token, verifier: verifier).headers["Location"] == "/account")
    }

    @Test func pathConfigurationScriptsAndAssociations() async throws {
        let gatehouse = try await Self.gatehouse()
        for platform in ["ios", "android"] {
            let response = try await gatehouse.browser().get("/configurations/\(platform)_v1.json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(document["settings"] is [String: Any])
            let rules = try #require(document["rules"] as? [[String: Any]])
            #expect(rules.allSatisfy { ($0["patterns"] as? [String])?.isEmpty == false && $0["properties"] is [String: Any] })
            let signIn = rules.first { ($0["patterns"] as? [String])?.contains(#"^/sign-in(\?|$)"#) == true }
            #expect((signIn?["properties"] as? [String: Any])?["context"] as? String == "modal")
        }
        let bridge = try await gatehouse.browser().get("/assets/gatehouse-bridge.js")
        #expect(bridge.status == 200 && bridge.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
        #expect(bridge.text.contains("sign-in-with-oauth") && bridge.text.contains("web-bridge:ready") && bridge.text.contains("redeemPath"))
        let turbo = try await gatehouse.browser().get("/assets/gatehouse-turbo.js")
        #expect(turbo.status == 200 && turbo.text.contains("registerAdapter") && turbo.text.contains("startVisit"))
        let page = try await gatehouse.browser().get("/sign-in")
        #expect(page.text.contains(#"<script src="/assets/gatehouse-turbo.js"></script>"#) && page.text.contains(#"name="gatehouse-page""#))
        // No app registered association keys here: nothing is served.
        #expect(try await gatehouse.browser().get("/.well-known/apple-app-site-association").status == 404)
    }

    @Test func appSiteAssociationFilesComeFromConfiguration() async throws {
        let gatehouse = try await TestGatehouse.make { configuration in
            configuration.clients.append(ConfiguredClient(registration: ClientRegistration(
                id: "ios-app", name: "App", kind: .public, redirectURIs: ["com.example.app:/oauth"],
                metadata: #"{"callback_schemes": ["exampleapp"], "callback_urls": ["https://app.example/auth/native/callback"], "apple_app_ids": ["ABCDE12345.com.example.app"], "package_names": ["com.example.app"], "android_cert_fingerprints": ["AA:BB"]}"#),
                secret: nil))
        }
        let apple = try await gatehouse.browser().get("/.well-known/apple-app-site-association")
        #expect(apple.status == 200 && apple.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(apple.body)) as? [String: Any])
        #expect((document["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.app"])
        #expect(apple.text.contains(#""/":"/auth/native/callback""#))
        let android = try await gatehouse.browser().get("/.well-known/assetlinks.json")
        #expect(android.status == 200 && android.text.contains("com.example.app") && android.text.contains("handle_all_urls"))
    }
}
