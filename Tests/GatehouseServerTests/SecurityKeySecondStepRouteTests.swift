import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
@testable import GatehouseServer
import GatehouseStore
import GatehouseTesting
import GatehouseWebAuthnTesting
import Testing

/// A security key or passkey as the only second step, and the last factor never removed while two-step
/// sign-in is on, through the rendered forms as a browser submits them.
@Suite struct SecurityKeySecondStepRouteTests {
    typealias Steps = SecondFactorRouteTests

    /// A password account with a passkey that turned on the security-key second step; the recovery codes shown.
    static func keyOnlyAccount(_ gatehouse: TestGatehouse) async throws -> (BrowserLikeClient, SoftwareAuthenticator, [String]) {
        let browser = try await gatehouse.signedUpBrowser()
        let off = try await browser.get("/account")
        #expect(!off.text.contains("/account/two-factor/security-key"), "no key yet: nothing to turn on")
        #expect(off.text.contains("add one under “Passkeys” first"))
        let authenticator = try await PasskeyRouteTests().addPasskey(browser, name: "YubiKey")
        let account = try await browser.get("/account")
        #expect(account.text.contains("Use my security key or passkey as the second step"))
        let on = try await browser.post("/account/two-factor/security-key", try Steps.submission(account.text, action: "/account/two-factor/security-key"))
        #expect(on.status == 200, "\(on.status) \(on.text)")
        let list = try #require(Steps.text(between: #"<ul id="recovery-codes">"#, and: "</ul>", in: on.text))
        let codes = list.components(separatedBy: "<code>").dropFirst().compactMap { $0.components(separatedBy: "</code>").first }
        #expect(codes.count == 10)
        let status = try await browser.get("/account")
        #expect(status.text.contains("your security key or passkey is asked for after your password"))
        #expect(status.text.contains("10 recovery codes left."))
        return (browser, authenticator, codes)
    }

    /// The assertion the prompt's script would post, made by `authenticator` for the prompt's options.
    static func assertionFields(_ prompt: TestResponse, _ authenticator: SoftwareAuthenticator) throws -> [(String, String)] {
        let json = HTMLForm.unescape(try #require(Steps.text(between: #"data-options=""#, and: "\"", in: prompt.text)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let options = try #require(object["publicKey"] as? [String: Any])
        let assertion = try authenticator.assert(challenge: try #require(Base64URL.decode(options["challenge"] as? String ?? "")))
        return [("csrf_token", BrowserLikeClient.hiddenField("csrf_token", in: prompt.text) ?? ""),
                ("challenge", BrowserLikeClient.hiddenField("challenge", in: prompt.text) ?? ""),
                ("credential_id", Base64URL.encode(assertion.credentialID)), ("client_data_json", Base64URL.encode(assertion.clientDataJSON)),
                ("authenticator_data", Base64URL.encode(assertion.authenticatorData)), ("signature", Base64URL.encode(assertion.signature)),
                ("user_handle", assertion.userHandle.map { Base64URL.encode($0) } ?? "")]
    }

    @Test func aSecurityKeyAloneIsAskedForAfterThePassword() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (browser, authenticator, codes) = try await Self.keyOnlyAccount(gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let prompt = try await Steps.passwordStep(browser, returnTo: "/account")
        #expect(prompt.text.contains(#"id="second-step-webauthn""#) && prompt.text.contains("Use a security key or passkey"))
        #expect(prompt.text.contains(#"<label for="code">Recovery code</label>"#), "no app: the field takes recovery codes")
        #expect(prompt.text.contains(#"data-cancelled="The security key request was cancelled or timed out.""#))
        #expect(try await browser.get("/account").status == 303, "the password alone signed nobody in")
        // A made-up six-digit code is no way through: there is no authenticator app.
        let wrong = try await Steps.secondStep(browser, prompt, code: "123456")
        #expect(wrong.status == 401 && wrong.text.contains("That recovery code is not right"))
        let done = try await browser.post("/sign-in/second-factor/webauthn", try Self.assertionFields(wrong, authenticator))
        #expect(done.status == 303 && done.headers["Location"] == "/account", "\(done.status) \(done.text)")
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let methods = try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).map(\.authMethods)
        #expect(methods.contains(["pwd", "hwk", "user", "mfa"]))
        // And a recovery code instead of the key, once.
        _ = try await browser.submit("/account", to: "/sign-out", [])
        #expect(try await Steps.secondStep(browser, try await Steps.passwordStep(browser), code: codes[0]).status == 303)
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("second_factor.added"))
    }

    @Test func theLastKeyOfAKeysOnlySecondStepStaysAndTurningOffIsTheWayOut() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (browser, authenticator, _) = try await Self.keyOnlyAccount(gatehouse)
        let id = Base64URL.encode(authenticator.credentials[0].id)
        let refused = try await browser.submit("/account", to: "/account/passkeys/\(id)/delete", [])
        #expect(refused.status == 409)
        #expect(refused.text.contains("This is your only second step, so it cannot be removed."))
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id).count == 1)
        // Stopping the keys is refused the same way (the form is offered only beside an app; posted all the same).
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: refused.text))
        let stop = try await browser.post("/account/two-factor/security-key/remove", [("csrf_token", csrf)])
        #expect(stop.status == 409 && stop.text.contains("only second step"))
        // Turning two-step sign-in off is the explicit way; the key then goes (the password is still a way in).
        let off = try await browser.submit("/account", to: "/account/two-factor/remove", [])
        #expect(off.headers["Location"] == "/account?notice=two-factor-off")
        let deleted = try await browser.submit("/account", to: "/account/passkeys/\(id)/delete", [])
        #expect(deleted.headers["Location"] == "/account?notice=passkey-removed")
    }

    @Test func theAppGoesOnlyWhileTheKeyStaysAndTheKeyOnlyWhileTheAppStays() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        _ = try await PasskeyRouteTests().addPasskey(browser, name: "YubiKey")
        _ = try await Steps.enrol(browser, gatehouse)
        // App only: removing it alone is refused (turning off is the way).
        let appOnly = try await browser.get("/account")
        #expect(!appOnly.text.contains(#"action="/account/two-factor/totp/remove""#))
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: appOnly.text))
        let refused = try await browser.post("/account/two-factor/totp/remove", [("csrf_token", csrf)])
        #expect(refused.status == 409 && refused.text.contains("This is your only second step"))
        // The key too: now either may go, through the forms the page shows.
        let on = try await browser.submit("/account", to: "/account/two-factor/security-key", [])
        #expect(on.headers["Location"] == "/account?notice=two-factor-on", "codes left: none shown again")
        let both = try await browser.get("/account")
        #expect(both.text.contains("a code from your authenticator app or your security key is asked for"))
        let removed = try await browser.post("/account/two-factor/totp/remove", try Steps.submission(both.text, action: "/account/two-factor/totp/remove"))
        #expect(removed.headers["Location"] == "/account?notice=two-factor-app-removed")
        let keysOnly = try await browser.get("/account?notice=two-factor-app-removed")
        #expect(keysOnly.text.contains("The authenticator app was removed. Your security key is still asked for."))
        #expect(keysOnly.text.contains("your security key or passkey is asked for after your password"))
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        #expect(try await gatehouse.app.services.secondFactors.isRequired(userID: user.id))
    }

    @Test func anApplicationThatRequiresMFAKeepsTwoStepOn() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "backoffice-web", name: "Back office", kind: .confidential, redirectURIs: ["https://backoffice.example/cb"],
            grantTypes: ["authorization_code"], scopes: ["openid"], firstParty: false, metadata: #"{"require_mfa": true}"#))
        let (browser, _, _) = try await Self.keyOnlyAccount(gatehouse)
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        try await gatehouse.database.consents.save(Consent(userId: user.id, clientId: "backoffice-web", scopes: ["openid"],
                                                           grantedAt: gatehouse.clock.now))
        let refused = try await browser.submit("/account", to: "/account/two-factor/remove", [])
        #expect(refused.status == 409)
        #expect(refused.text.contains("Back office requires two-step sign-in, so it stays on."))
        #expect(try await gatehouse.app.services.secondFactors.isRequired(userID: user.id))
        // Once the application's access is revoked, two-step sign-in can go.
        _ = try await browser.submit("/account", to: "/account/apps/backoffice-web/revoke", [])
        let off = try await browser.submit("/account", to: "/account/two-factor/remove", [])
        #expect(off.headers["Location"] == "/account?notice=two-factor-off")
    }

    @Test func thePagesSpeakTheReadersLanguage() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (browser, _, _) = try await Self.keyOnlyAccount(gatehouse)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        let page = try await browser.get("/sign-in")
        let prompt = try await browser.post("/sign-in", try Steps.submission(page.text, action: "/sign-in",
                                                                              ["email": "ada@example.com", "password": Steps.password]),
                                            headers: ["Accept-Language": "de-DE, en;q=0.5"])
        let german = Languages.builtIn.texts("de")
        #expect(prompt.text.contains(german["second_step.title"]) && prompt.text.contains(german["second_step.recovery_label"]))
        #expect(prompt.text.contains(german["second_step.use_key"]))
        #expect(!prompt.text.contains("Use a security key or passkey"))
    }
}
