import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import GatehouseWebAuthnTesting
import Testing

/// The passkey routes in process: the forms the page script posts, the JSON it reads, a software
/// authenticator answering; the account rules (fresh sign-in, never the last way in); the settings.
@Suite struct PasskeyRouteTests {
    static let origin = "http://127.0.0.1:8080"

    func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// Adds a passkey from the account page as the script would; returns the authenticator.
    func addPasskey(_ browser: BrowserLikeClient, name: String = "Laptop",
                    authenticator: SoftwareAuthenticator = SoftwareAuthenticator(rpID: "127.0.0.1", origin: origin)) async throws
        -> SoftwareAuthenticator {
        let account = try await browser.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: account.text))
        let answer = try await browser.post("/account/passkeys/options", [("csrf_token", csrf)])
        #expect(answer.status == 200)
        let options = try #require(try json(answer)["publicKey"] as? [String: Any])
        let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
        let user = try #require(options["user"] as? [String: Any])
        let handle = try #require(Base64URL.decode(user["id"] as? String ?? ""))
        #expect((options["rp"] as? [String: Any])?["id"] as? String == "127.0.0.1")
        #expect((options["authenticatorSelection"] as? [String: Any])?["residentKey"] as? String == "required")
        let made = try authenticator.register(challenge: challenge, userHandle: handle)
        let stored = try await browser.post("/account/passkeys", [
            ("csrf_token", csrf), ("name", name), ("credential_id", Base64URL.encode(made.credentialID)),
            ("client_data_json", Base64URL.encode(made.clientDataJSON)), ("attestation_object", Base64URL.encode(made.attestationObject)),
            ("transports", "internal"),
        ])
        #expect(stored.status == 200, "\(stored.text)")
        #expect(try json(stored)["redirect"] as? String == "/account?notice=passkey-added")
        return authenticator
    }

    func passkeySignIn(_ browser: BrowserLikeClient, _ authenticator: SoftwareAuthenticator) async throws -> TestResponse {
        // reauth=1: the form even for a browser still signed in (a fresh sign-in).
        let page = try await browser.get("/sign-in?reauth=1")
        #expect(page.text.contains(#"autocomplete="username webauthn""#))
        #expect(page.text.contains(#"id="passkey-sign-in-button""#))
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        let answer = try json(try await browser.post("/passkeys/sign-in/options", [("csrf_token", csrf)]))
        let options = try #require(answer["publicKey"] as? [String: Any])
        #expect((options["allowCredentials"] as? [Any])?.isEmpty == true)
        #expect(options["userVerification"] as? String == "required")
        let challenge = try #require(Base64URL.decode(options["challenge"] as? String ?? ""))
        let assertion = try authenticator.assert(challenge: challenge)
        return try await browser.post("/passkeys/sign-in", [
            ("csrf_token", csrf), ("return_to", "/account"), ("credential_id", Base64URL.encode(assertion.credentialID)),
            ("client_data_json", Base64URL.encode(assertion.clientDataJSON)),
            ("authenticator_data", Base64URL.encode(assertion.authenticatorData)), ("signature", Base64URL.encode(assertion.signature)),
            ("user_handle", assertion.userHandle.map { Base64URL.encode($0) } ?? ""),
        ])
    }

    @Test func addListSignInRenameAndRemove() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        #expect(try await browser.get("/account").text.contains("No passkeys yet."))
        let authenticator = try await addPasskey(browser, name: "Ada's <laptop>")
        let account = try await browser.get("/account?notice=passkey-added")
        #expect(account.text.contains("The passkey was added to your account."))
        #expect(account.text.contains("Ada&#39;s &lt;laptop&gt;") || account.text.contains("Ada&#x27;s &lt;laptop&gt;"))
        #expect(account.text.contains("never used · on this device only"))

        _ = try await browser.submit("/account", to: "/sign-out", [])
        let signedIn = try await passkeySignIn(browser, authenticator)
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect(try json(signedIn)["redirect"] as? String == "/account")
        #expect(signedIn.headers["Set-Cookie"]?.contains("gatehouse_session=") == true)
        #expect(try await browser.get("/account").status == 200)
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let sessions = try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now)
        #expect(sessions.contains { $0.authMethods == ["hwk", "user", "mfa"] }, "RFC 8176 methods of a device-bound, verified passkey")

        let id = Base64URL.encode(authenticator.credentials[0].id)
        let renamed = try await browser.submit("/account", to: "/account/passkeys/\(id)/rename", [("name", "Work laptop")])
        #expect(renamed.status == 303)
        #expect(try await browser.get("/account").text.contains("Work laptop"))
        let removed = try await browser.submit("/account", to: "/account/passkeys/\(id)/delete", [])
        #expect(removed.headers["Location"] == "/account?notice=passkey-removed")
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id).isEmpty)
        let types = try await gatehouse.auditTypes(email: "ada@example.com")
        for type in ["passkey.added", "passkey.renamed", "passkey.removed"] { #expect(types.contains(type), "\(type)") }
    }

    @Test func changesNeedAFreshSignIn() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let authenticator = try await addPasskey(browser)
        gatehouse.clock.advance(6 * 60)
        let account = try await browser.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: account.text))
        let options = try await browser.post("/account/passkeys/options", [("csrf_token", csrf)])
        #expect(options.status == 403)
        #expect(options.headers["Location"] == "/sign-in?reauth=1&return_to=%2Faccount")
        let id = Base64URL.encode(authenticator.credentials[0].id)
        for action in ["/account/passkeys/\(id)/rename", "/account/passkeys/\(id)/delete"] {
            let refused = try await browser.post(action, [("csrf_token", csrf), ("name", "x")])
            #expect(refused.headers["Location"] == "/sign-in?reauth=1&return_to=%2Faccount", "\(action)")
        }
        #expect(try await gatehouse.database.webAuthnCredentials.credential(id: authenticator.credentials[0].id)?.name == "Laptop")
        // A passkey sign-in is a fresh sign-in.
        #expect(try await passkeySignIn(browser, authenticator).status == 200)
        #expect(try await browser.submit("/account", to: "/account/passkeys/\(id)/rename", [("name", "Renamed")]).status == 303)
    }

    @Test func theLastWayInCannotBeRemoved() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let authenticator = try await addPasskey(browser)
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        // The account's password goes (as for an account that signed up with a passkey): the passkey is its only way in.
        _ = try await gatehouse.database.users.update(id: user.id, [.passwordHash(nil)], at: gatehouse.clock.now)
        let id = Base64URL.encode(authenticator.credentials[0].id)
        let refused = try await browser.submit("/account", to: "/account/passkeys/\(id)/delete", [])
        #expect(refused.status == 409)
        #expect(refused.text.contains("only way to sign in, so it cannot be removed"))
        #expect(try await gatehouse.database.webAuthnCredentials.credentials(userID: user.id).count == 1)
        // Another user's passkey id is not found, not removed.
        let other = try await gatehouse.signedUpBrowser(email: "bob@example.com")
        #expect(try await other.submit("/account", to: "/account/passkeys/\(id)/delete", []).status == 404)
    }

    @Test func refusalsAnswerJSONAndSignNobodyIn() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let authenticator = try await addPasskey(browser)
        _ = try await browser.submit("/account", to: "/sign-out", [])
        authenticator.origin = "https://evil.example"
        let refused = try await passkeySignIn(browser, authenticator)
        #expect(refused.status == 400)
        #expect(try json(refused)["error"] as? String == "The passkey was not accepted. Try again.")
        #expect(refused.headers["Set-Cookie"] == nil)
        #expect(try await browser.get("/account").status == 303)
        let bad = try await browser.post("/passkeys/sign-in", [("csrf_token", "nope")])
        #expect(bad.status == 403)
        #expect(try json(bad)["error"] != nil)
        #expect(gatehouse.log.all.contains { $0.contains("passkey.sign_in_failed") && $0.contains("wrong_origin") })
    }

    @Test func anIDTokenAfterAPasskeySignInSaysWhatItProved() async throws {
        let oauth = try await OAuthFixture.make()
        let authenticator = try await addPasskey(oauth.browser)
        _ = try await oauth.browser.submit("/account", to: "/sign-out", [])
        #expect(try await passkeySignIn(oauth.browser, authenticator).status == 200)
        let (code, verifier) = try await oauth.publicCode()
        let exchange = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                              ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)])
        let idToken = try #require(exchange.json["id_token"] as? String)
        #expect(OAuthFixture.claims(idToken)["amr"] as? [String] == ["hwk", "user", "mfa"])
    }

    @Test func theDocumentedSettings() throws {
        // docs/webauthn.md, "Settings": exactly this text.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-passkeys-\(UUID().uuidString).json").path
        try #"{ "passkeys": { "rp_id": "example.com", "rp_name": "Example" } }"#.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "https://id.example.com",
                                                                          "GATEHOUSE_CONFIG": path])
        #expect(configuration.passkeys.effectiveRPID(publicURL: configuration.publicURL) == "example.com")
        #expect(configuration.passkeys.rpName == "Example")
        let plain = try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "https://id.example.com"])
        #expect(plain.passkeys.effectiveRPID(publicURL: plain.publicURL) == "id.example.com")
        for bad in [#"{"passkeys": {"rp_id": "evil.com"}}"#, #"{"passkeys": {"rp_id": "ample.com"}}"#, #"{"passkeys": {"rp_id": "Example.com"}}"#,
                    #"{"passkeys": {"rp_name": ""}}"#, #"{"passkeys": {"rp_idd": "example.com"}}"#] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "https://id.example.com", "GATEHOUSE_CONFIG": path])
            }
        }
    }
}
