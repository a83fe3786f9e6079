import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import GatehouseWebAuthnTesting
import Testing

/// Sign-up with a passkey and no password, through the sign-up page's own form as its script posts it: the
/// account is unverified until the mailed link is confirmed, a taken address gets the same answer, and an address
/// proven by someone not signed in with the passkey loses the passkey (an account taken over in advance).
@Suite struct PasskeySignUpTests {
    static let origin = "http://127.0.0.1:8080"

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// The page's passkey form, submitted as the script does; returns the finishing answer and the options.
    func signUp(_ browser: BrowserLikeClient, _ authenticator: SoftwareAuthenticator, email: String,
                finishEmail: String? = nil) async throws -> (TestResponse, [String: Any]) {
        let page = try await browser.get("/sign-up")
        #expect(page.text.contains(#"id="passkey-sign-up-form""#) && page.text.contains(#"action="/sign-up/passkey""#))
        let form = try #require(page.text.range(of: #"id="passkey-sign-up-form""#).map { String(page.text[$0.upperBound...]) })
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: form))
        let answer = try await browser.post("/sign-up/passkey/options", [("csrf_token", csrf), ("email", email), ("name", "Ada")])
        #expect(answer.status == 200, "\(answer.text)")
        let options = try #require(try json(answer)["publicKey"] as? [String: Any])
        let user = try #require(options["user"] as? [String: Any])
        let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
        let made = try authenticator.register(challenge: challenge, userHandle: try #require(Base64URL.decode(user["id"] as? String ?? "")))
        let finished = try await browser.post("/sign-up/passkey", [
            ("csrf_token", csrf), ("email", finishEmail ?? email), ("name", "Ada"), ("credential_id", Base64URL.encode(made.credentialID)),
            ("client_data_json", Base64URL.encode(made.clientDataJSON)), ("attestation_object", Base64URL.encode(made.attestationObject)),
            ("transports", "internal")])
        return (finished, options)
    }

    @Test func aPasskeyAccountHasNoPasswordAndIsProvenByTheMailedLink() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = gatehouse.browser()
        let authenticator = SoftwareAuthenticator(rpID: "127.0.0.1", origin: Self.origin)
        let (finished, options) = try await signUp(browser, authenticator, email: "ada@example.com")
        #expect(finished.status == 200, "\(finished.text)")
        #expect(try json(finished)["redirect"] as? String == "/sign-up/check-email")
        #expect(finished.headers["Set-Cookie"]?.contains("gatehouse_session=") != true, "sign-up signs nobody in")
        #expect((options["user"] as? [String: Any])?["name"] as? String == "ada@example.com")
        #expect((options["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        #expect(user.passwordHash == nil && !user.emailVerified && user.displayName == "Ada")
        let stored = try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id)
        #expect(stored.map(\.credentialID) == [authenticator.credentials[0].id])
        #expect(try await gatehouse.database.webAuthnCredentials.userID(handle: authenticator.credentials[0].userHandle) == user.id)

        // Unverified, the usual rules: the passkey signs in (as a password would)...
        let signedIn = try await PasskeyRouteTests().passkeySignIn(browser, authenticator)
        #expect(signedIn.status == 200, "\(signedIn.text)")
        // ...and the link, confirmed while signed in with the passkey, proves the address and keeps the passkey.
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/email/verify/"))
        let verified = try await browser.submit(link, to: link, [])
        #expect(verified.headers["Location"] == "/account?notice=email-verified", "\(verified.text)")
        #expect(try await gatehouse.database.users.find(email: "ada@example.com")?.emailVerified == true)
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id).count == 1)
        let types = try await gatehouse.auditTypes(email: "ada@example.com")
        for type in ["sign_up", "passkey.added", "email.verified"] { #expect(types.contains(type), "\(type): \(types)") }
    }

    @Test func aTakenAddressGetsTheSameAnswerAndNothingIsStored() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser(email: "ada@example.com")
        let owner = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let authenticator = SoftwareAuthenticator(rpID: "127.0.0.1", origin: Self.origin)
        let (finished, _) = try await signUp(gatehouse.browser(ip: "10.0.0.9"), authenticator, email: "ada@example.com")
        #expect(try finished.status == 200 && (json(finished)["redirect"] as? String) == "/sign-up/check-email")
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: owner.id).isEmpty)
        #expect(try await gatehouse.database.webAuthnCredentials.credential(id: authenticator.credentials[0].id) == nil)
        // Mail goes out in the background: the owner is told.
        #expect(await gatehouse.mailer.link(to: "ada@example.com", containing: "/password/forgot") != nil, "the owner is told by mail")
    }

    @Test func anAddressProvenElsewhereLosesThePasskeyMadeBeforeTheProof() async throws {
        let gatehouse = try await TestGatehouse.make()
        // The attacker signs the victim's address up with the attacker's passkey.
        let attacker = SoftwareAuthenticator(rpID: "127.0.0.1", origin: Self.origin)
        let attackerBrowser = gatehouse.browser(ip: "10.0.0.66")
        #expect(try await signUp(attackerBrowser, attacker, email: "victim@example.com").0.status == 200)
        // The victim opens the link in their own browser, not signed in, and confirms without a password.
        let link = try #require(await gatehouse.mailer.link(to: "victim@example.com", containing: "/email/verify/"))
        let victim = gatehouse.browser()
        let page = try await victim.get(link)
        #expect(page.text.contains(#"id="verify-with-passkey""#))
        let confirmed = try await victim.submit(link, to: link, [("password", "")])
        #expect(confirmed.status == 303 && confirmed.headers["Location"]?.hasPrefix("/password/reset/") == true, "\(confirmed.text)")
        let user = try #require(try await gatehouse.database.users.find(email: "victim@example.com"))
        #expect(user.emailVerified)
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id).isEmpty)
        let claims = try await gatehouse.database.auditLog.list(userId: user.id, limit: 50).filter { $0.event.type == "account.claimed" }
        #expect(claims.first.map { NativePasskeyTests.detail($0, "passkeys_removed") } == "1")
        // The attacker's passkey no longer signs in.
        #expect(try await PasskeyRouteTests().passkeySignIn(attackerBrowser, attacker).status == 400)
    }

    @Test func theChallengeAnswersOnlyTheAddressAndBrowserItWasIssuedFor() async throws {
        let gatehouse = try await TestGatehouse.make()
        let authenticator = SoftwareAuthenticator(rpID: "127.0.0.1", origin: Self.origin)
        let (finished, _) = try await signUp(gatehouse.browser(), authenticator, email: "ada@example.com", finishEmail: "eve@example.com")
        #expect(finished.status == 400)
        #expect(try await gatehouse.database.users.find(email: "eve@example.com") == nil)
        #expect(try await gatehouse.database.users.find(email: "ada@example.com") == nil)
        // A bad address is refused before any challenge, as a form error.
        let browser = gatehouse.browser()
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: try await browser.get("/sign-up").text))
        let refused = try await browser.post("/sign-up/passkey/options", [("csrf_token", csrf), ("email", "not an address"), ("name", "")])
        #expect(try refused.status == 422 && (json(refused)["error"] as? String)?.isEmpty == false)
        // A forged CSRF token is refused as JSON.
        let forged = try await browser.post("/sign-up/passkey/options", [("csrf_token", "forged"), ("email", "ada@example.com")])
        #expect(try forged.status == 403 && (json(forged)["error"] as? String) != nil)
    }
}
