import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// Two-step sign-in in process, through the rendered forms: set-up on the account page, the code prompt
/// after the password, recovery codes, the ID token's `amr`/`acr`, step-up from `/oauth/authorize`, the
/// admin API, and the attacks (replay, brute force, reuse, another browser's challenge).
@Suite struct SecondFactorRouteTests {
    static let password = "correct horse battery"

    /// The rendered form's fields as a browser sends them, with `fields` filled in.
    static func submission(_ html: String, action: String, _ fields: [String: String] = [:]) throws -> [(String, String)] {
        let form = try #require(HTMLFormSubmission(html, action: action), "no form posting to \(action)")
        var filled = form.controls.filter { !$0.isSubmitter }.map { ($0.name, fields[$0.name] ?? $0.value) }
        for (name, value) in fields where !filled.contains(where: { $0.0 == name }) { filled.append((name, value)) }
        return filled
    }

    static func text(between start: String, and end: String, in html: String) -> String? {
        guard let open = html.range(of: start), let close = html[open.upperBound...].range(of: end) else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }

    static func code(_ secret: [UInt8], _ gatehouse: TestGatehouse, offset: Int64 = 0) -> String {
        OneTimePassword.totp(secret: secret, step: OneTimePassword.step(unixTime: Int64(gatehouse.clock.now.timeIntervalSince1970)) + offset)
    }

    /// Sets up an authenticator app from the account page; returns its secret and the recovery codes shown.
    static func enrol(_ browser: BrowserLikeClient, _ gatehouse: TestGatehouse) async throws -> (secret: [UInt8], codes: [String]) {
        let account = try await browser.get("/account")
        #expect(account.text.contains("Set up an authenticator app"))
        let setup = try await browser.post("/account/two-factor/setup", try submission(account.text, action: "/account/two-factor/setup"))
        #expect(setup.status == 200, "\(setup.text)")
        #expect(setup.text.contains("<svg") && setup.text.contains("<path d=\"M"), "the QR code is drawn inline")
        #expect(setup.text.contains(#"autocomplete="one-time-code""#) && setup.text.contains(#"inputmode="numeric""#))
        let shown = try #require(text(between: #"<code id="totp-secret">"#, and: "</code>", in: setup.text))
        let secret = try #require(Base32.decode(shown))
        #expect(setup.text.contains("otpauth://totp/"))
        let confirmed = try await browser.post("/account/two-factor/confirm",
                                               try submission(setup.text, action: "/account/two-factor/confirm", ["code": code(secret, gatehouse)]))
        #expect(confirmed.status == 200, "\(confirmed.text)")
        let list = try #require(text(between: #"<ul id="recovery-codes">"#, and: "</ul>", in: confirmed.text))
        let codes = list.components(separatedBy: "<code>").dropFirst().compactMap { $0.components(separatedBy: "</code>").first }
        #expect(codes.count == 10)
        // The confirming code's step is spent; the next sign-in uses the next one.
        gatehouse.clock.advance(30)
        return (secret, codes)
    }

    /// Signs out, then in with the password: the code prompt (status 200, no session yet).
    static func passwordStep(_ browser: BrowserLikeClient, returnTo: String? = nil) async throws -> TestResponse {
        let page = try await browser.get("/sign-in" + (returnTo.map { "?return_to=" + PercentDecoding.encode($0) } ?? ""))
        let answer = try await browser.post("/sign-in", try submission(page.text, action: "/sign-in",
                                                                        ["email": "ada@example.com", "password": password]))
        #expect(answer.status == 200, "\(answer.status) \(answer.text)")
        #expect(answer.headers["Set-Cookie"]?.contains("gatehouse_session=") != true, "no session before the second step")
        #expect(answer.text.contains(#"autocomplete="one-time-code""#))
        return answer
    }

    static func secondStep(_ browser: BrowserLikeClient, _ prompt: TestResponse, code: String) async throws -> TestResponse {
        try await browser.post("/sign-in/second-factor", try submission(prompt.text, action: "/sign-in/second-factor", ["code": code]))
    }

    func sessionMethods(_ gatehouse: TestGatehouse) async throws -> [[String]] {
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        return try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).map(\.authMethods)
    }

    @Test func enrolSignOutThenPasswordAndCodeGiveAnOTPSession() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let (secret, _) = try await Self.enrol(browser, gatehouse)
        #expect(try await browser.get("/account").text.contains("10 recovery codes left"))
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let prompt = try await Self.passwordStep(browser, returnTo: "/account")
        #expect(!prompt.text.contains("second-step-webauthn"), "no security key registered: no such button")
        #expect(try await browser.get("/account").status == 303, "the password alone signed nobody in")
        let done = try await Self.secondStep(browser, prompt, code: Self.code(secret, gatehouse))
        #expect(done.status == 303 && done.headers["Location"] == "/account", "\(done.status) \(done.text)")
        #expect(try await browser.get("/account").status == 200)
        #expect(try await sessionMethods(gatehouse).contains(["pwd", "otp", "mfa"]))
        let types = try await gatehouse.auditTypes(email: "ada@example.com")
        for type in ["second_factor.added", "second_factor.recovery_codes_generated"] { #expect(types.contains(type), "\(type)") }
    }

    @Test func theIDTokenSaysPwdOtpMfaAndTheMFALevel() async throws {
        let oauth = try await OAuthFixture.make()
        let gatehouse = oauth.gatehouse
        let (secret, _) = try await Self.enrol(oauth.browser, gatehouse)
        _ = try await oauth.browser.submit("/account", to: "/sign-out", [])
        let prompt = try await Self.passwordStep(oauth.browser)
        #expect(try await Self.secondStep(oauth.browser, prompt, code: Self.code(secret, gatehouse)).status == 303)
        let result = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect),
                                                ("scope", "openid"), ("state", "s")])
        let code = try #require(result.query["code"], "\(result)")
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)],
                                           basic: ("web-app", oauth.confidentialSecret))
        let claims = OAuthFixture.claims(try #require(tokens.json["id_token"] as? String))
        #expect(claims["amr"] as? [String] == ["pwd", "otp", "mfa"])
        #expect(claims["acr"] as? String == "urn:gatehouse:acr:mfa")
    }

    @Test func stepUpLeadsAPasswordOnlySessionToItsSecondFactorAndNeverGivesALowerACR() async throws {
        let oauth = try await OAuthFixture.make()
        let gatehouse = oauth.gatehouse
        let parameters = [("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect),
                          ("scope", "openid"), ("state", "s"), ("acr_values", "urn:gatehouse:acr:mfa")]
        // No second factor yet: led to set one up, no code.
        let first = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: parameters).encoded)
        let stepUp = try #require(first.headers["Location"])
        #expect(stepUp.hasPrefix("/sign-in/step-up?return_to="))
        let enrol = try await oauth.browser.get(stepUp)
        #expect(enrol.status == 403 && enrol.text.contains("Set up two-step sign-in"))
        // Without acr_values the same session gets a single-factor code, and says so.
        let plain = try await oauth.authorize(Array(parameters.dropLast()))
        let plainTokens = try await oauth.token([("grant_type", "authorization_code"), ("code", try #require(plain.query["code"])),
                                                 ("redirect_uri", OAuthFixture.redirect)], basic: ("web-app", oauth.confidentialSecret))
        #expect(OAuthFixture.claims(try #require(plainTokens.json["id_token"] as? String))["acr"] as? String == "urn:gatehouse:acr:sfa")

        let (secret, _) = try await Self.enrol(oauth.browser, gatehouse)
        let again = try await oauth.browser.get("/oauth/authorize?" + URLEncodedForm(pairs: parameters).encoded)
        let prompt = try await oauth.browser.get(try #require(again.headers["Location"]))
        #expect(prompt.status == 200 && prompt.text.contains(#"autocomplete="one-time-code""#))
        let done = try await Self.secondStep(oauth.browser, prompt, code: Self.code(secret, gatehouse))
        let resume = try #require(done.headers["Location"])
        #expect(resume.hasPrefix("/oauth/authorize?gatehouse_pending="), "\(done.status) \(resume)")
        let back = try await oauth.browser.get(resume)
        let location = try #require(back.headers["Location"])
        #expect(location.hasPrefix(OAuthFixture.redirect), "\(location)")
        let items = URLComponents(string: location)?.queryItems ?? []
        let code = try #require(items.first(where: { $0.name == "code" })?.value)
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)],
                                           basic: ("web-app", oauth.confidentialSecret))
        let claims = OAuthFixture.claims(try #require(tokens.json["id_token"] as? String))
        #expect(claims["acr"] as? String == "urn:gatehouse:acr:mfa")
        #expect(claims["amr"] as? [String] == ["pwd", "otp", "mfa"])
        let discovery = try await oauth.client.get("/.well-known/openid-configuration")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any])
        #expect(document["acr_values_supported"] as? [String] == ["urn:gatehouse:acr:sfa", "urn:gatehouse:acr:mfa"])
        #expect((document["claims_supported"] as? [String])?.contains("acr") == true)
        #expect((document["claims_supported"] as? [String])?.contains("amr") == true)
    }

    @Test func aReplayedCodeIsRefusedAndConcurrentSubmissionsLetExactlyOneIn() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let (secret, _) = try await Self.enrol(browser, gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        // Two browsers past the password step, racing with one code.
        let second = gatehouse.browser()
        let promptA = try await Self.passwordStep(browser), promptB = try await Self.passwordStep(second)
        let code = Self.code(secret, gatehouse)
        let fieldsA = try Self.submission(promptA.text, action: "/sign-in/second-factor", ["code": code])
        let fieldsB = try Self.submission(promptB.text, action: "/sign-in/second-factor", ["code": code])
        async let a = browser.post("/sign-in/second-factor", fieldsA)
        async let b = second.post("/sign-in/second-factor", fieldsB)
        let statuses = try await [a.status, b.status].sorted()
        #expect(statuses == [303, 401], "\(statuses)")
        // The same challenge submitted twice at once: one answer spends it.
        _ = try await browser.submit("/account", to: "/sign-out", [])
        _ = try await second.submit("/account", to: "/sign-out", [])
        gatehouse.clock.advance(30)
        let prompt = try await Self.passwordStep(browser)
        let fields = try Self.submission(prompt.text, action: "/sign-in/second-factor", ["code": Self.code(secret, gatehouse)])
        async let c = browser.post("/sign-in/second-factor", fields)
        async let d = browser.post("/sign-in/second-factor", fields)
        let twice = try await [c.status, d.status].sorted()
        // The loser is refused either as a spent challenge (400) or, when it leaves after the winner set the new
        // session cookie in this browser, as a form that no longer belongs to the browser's session (403).
        #expect(twice.first == 303 && [400, 403].contains(twice.last ?? 0), "\(twice)")
        // The used code again, in a new sign-in within its window: refused.
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let late = try await Self.secondStep(browser, try await Self.passwordStep(browser), code: Self.code(secret, gatehouse))
        #expect(late.status == 401 && late.text.contains("That code was used already"))
    }

    @Test func bruteForceHitsTheLimitAndTheChallengeStaysUsable() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let (secret, _) = try await Self.enrol(browser, gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        var page = try await Self.passwordStep(browser)
        let right = Self.code(secret, gatehouse)
        var statuses: [Int] = []
        for guess in 0..<6 {
            let wrong = String(format: "%06d", (Int(right)! + 1 + guess) % 1_000_000)
            page = try await Self.secondStep(browser, page, code: wrong)
            statuses.append(page.status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429], "\(statuses)")
        #expect(page.headers["Retry-After"] != nil)
        let held = try await Self.secondStep(browser, page, code: right)
        #expect(held.status == 429, "even the right code waits")
        gatehouse.clock.advance(61)
        let later = try await Self.secondStep(browser, held, code: Self.code(secret, gatehouse))
        #expect(later.status == 303, "\(later.status) \(later.text)")
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("second_factor.rate_limited"))
    }

    @Test func aRecoveryCodeSignsInOnceAndAnotherBrowsersChallengeIsRefused() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let (_, codes) = try await Self.enrol(browser, gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let used = try await Self.secondStep(browser, try await Self.passwordStep(browser), code: codes[3])
        #expect(used.status == 303)
        #expect(try await sessionMethods(gatehouse).contains(["pwd", "mfa"]))
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let again = try await Self.secondStep(browser, try await Self.passwordStep(browser), code: codes[3])
        #expect(again.status == 401)
        // A challenge carried to another browser (its CSRF token and all): not that browser's sign-in.
        let prompt = try await Self.passwordStep(browser)
        let thief = gatehouse.browser(ip: "198.51.100.4")
        let thiefPage = try await thief.get("/sign-in")
        var fields = try Self.submission(prompt.text, action: "/sign-in/second-factor", ["code": codes[4]])
        fields = fields.map { $0.0 == "csrf_token" ? ($0.0, BrowserLikeClient.hiddenField("csrf_token", in: thiefPage.text) ?? "") : $0 }
        let stolen = try await thief.post("/sign-in/second-factor", fields)
        #expect(stolen.status == 400 && stolen.headers["Set-Cookie"]?.contains("gatehouse_session=") != true)
        #expect(try await thief.get("/account").status == 303)
        // A made-up challenge: refused the same way, never a 500.
        let madeUp = try await browser.post("/sign-in/second-factor", [("csrf_token", BrowserLikeClient.hiddenField("csrf_token", in: prompt.text) ?? ""),
                                                                       ("challenge", String(repeating: "A", count: 43)), ("code", "123456")])
        #expect(madeUp.status == 400)
    }

    @Test func changesNeedAFreshSignInAndRemovalTurnsItOff() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let (secret, codes) = try await Self.enrol(browser, gatehouse)
        gatehouse.clock.advance(6 * 60)
        let account = try await browser.get("/account")
        for action in ["/account/two-factor/recovery-codes", "/account/two-factor/remove"] {
            let refused = try await browser.post(action, try Self.submission(account.text, action: action))
            #expect(refused.headers["Location"] == "/sign-in?reauth=1&return_to=%2Faccount", "\(action)")
        }
        _ = try await browser.submit("/account", to: "/sign-out", [])
        #expect(try await Self.secondStep(browser, try await Self.passwordStep(browser), code: Self.code(secret, gatehouse)).status == 303)
        let fresh = try await browser.get("/account")
        let regenerated = try await browser.post("/account/two-factor/recovery-codes",
                                                 try Self.submission(fresh.text, action: "/account/two-factor/recovery-codes"))
        #expect(regenerated.status == 200 && regenerated.text.contains(#"<ul id="recovery-codes">"#))
        #expect(!codes.contains { regenerated.text.contains($0) })
        let removed = try await browser.post("/account/two-factor/remove", try Self.submission(fresh.text, action: "/account/two-factor/remove"))
        #expect(removed.headers["Location"] == "/account?notice=two-factor-off")
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let page = try await browser.get("/sign-in")
        let plain = try await browser.post("/sign-in", try Self.submission(page.text, action: "/sign-in",
                                                                            ["email": "ada@example.com", "password": Self.password]))
        #expect(plain.status == 303, "the password alone again")
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("second_factor.removed"))
    }

    @Test func aSecurityKeyOrPasskeyAnswersTheSecondStepInsteadOfTheCode() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let authenticator = try await PasskeyRouteTests().addPasskey(browser, name: "Key")
        _ = try await Self.enrol(browser, gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])

        func assertionFields(_ prompt: TestResponse) throws -> [(String, String)] {
            #expect(prompt.text.contains(#"id="second-step-webauthn""#))
            let json = HTMLForm.unescape(try #require(Self.text(between: #"data-options=""#, and: "\"", in: prompt.text)))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(((object["publicKey"] as? [String: Any])?["allowCredentials"] as? [Any])?.count == 1, "the user's own credentials, by id")
            return try SecurityKeySecondStepRouteTests.assertionFields(prompt, authenticator)
        }
        let fields = try assertionFields(try await Self.passwordStep(browser))
        let done = try await browser.post("/sign-in/second-factor/webauthn", fields)
        #expect(done.status == 303 && done.headers["Location"] == "/account", "\(done.status) \(done.text)")
        #expect(try await sessionMethods(gatehouse).contains(["pwd", "hwk", "user", "mfa"]))
        // The same assertion for another sign-in's challenge: its WebAuthn challenge is another, so refused.
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let next = try await Self.passwordStep(browser)
        var replayed = fields
        replayed[0].1 = BrowserLikeClient.hiddenField("csrf_token", in: next.text) ?? ""
        replayed[1].1 = BrowserLikeClient.hiddenField("challenge", in: next.text) ?? ""
        let refused = try await browser.post("/sign-in/second-factor/webauthn", replayed)
        #expect(refused.status == 401 && refused.text.contains("was not accepted"))
        #expect(try await browser.get("/account").status == 303)
    }

    @Test func theAdminAPIListsAndResetsAUsersFactors() async throws {
        let oauth = try await OAuthFixture.make()
        let (_, secret) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "backoffice", name: "Back office", kind: .confidential, grantTypes: ["client_credentials"], scopes: ["admin"],
            firstParty: true, metadata: #"{"admin": true}"#))
        let adminSecret = try #require(secret)
        let granted = try await oauth.token([("grant_type", "client_credentials"), ("scope", "admin")], basic: ("backoffice", adminSecret))
        let token = try #require(granted.json["access_token"] as? String)
        _ = try await Self.enrol(oauth.browser, oauth.gatehouse)
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        let headers: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        let listed = try await oauth.client.get("/admin/v1/users/\(user.id)/factors", headers: headers)
        #expect(listed.status == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])
        #expect(body["totp"] as? Bool == true && body["recovery_codes_left"] as? Int == 10 && body["second_step_required"] as? Bool == true)
        #expect((body["webauthn"] as? [Any])?.isEmpty == true)
        let reset = try await oauth.client.send(.post, "/admin/v1/users/\(user.id)/factors/reset", headers: headers, body: [])
        #expect(reset.status == 204)
        #expect(try await oauth.gatehouse.app.services.secondFactors.isRequired(userID: user.id) == false)
        #expect(try await oauth.client.get("/admin/v1/users/nobody/factors", headers: headers).status == 404)
        let types = try await oauth.gatehouse.auditTypes(email: "ada@example.com")
        #expect(types.contains("second_factor.reset"))
        let document = try await oauth.client.get("/admin/v1/openapi.json")
        #expect(document.text.contains("\"/admin/v1/users/{id}/factors\""))
    }
}
