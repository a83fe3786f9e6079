import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseIdentity
import GatehouseServer
import GatehouseTesting
import Testing

/// The smoke subset — sign-up, the code flow with PKCE, a refresh, an Apple callback —
/// as one test body run over both transports: in-process (the pipeline called directly) and a real
/// socket (libmicrohttpd on a loopback port), as Hummingbird runs one body over its test frameworks.
@Suite struct SmokeOverBothTransportsTests {
    static let redirect = "com.example.smoke:/cb"

    @Test(arguments: TestTransport.allCases)
    func signUpCodeFlowRefreshAndAppleCallback(_ transport: TestTransport) async throws {
        let harness = try await ProviderHarness.make { $0.http.listen = ListenAddress(host: "127.0.0.1", port: 0) }
        try await harness.app.services.keys.ensureSigningKey()
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "smoke-app", name: "Smoke", kind: .public, redirectURIs: [Self.redirect], grantTypes: ["authorization_code", "refresh_token"],
            firstParty: true))
        try await transport.run(harness.app.pipeline, configuration: harness.app.configuration.http) { client in

            // Sign-up: an account, signed in, its address still to be confirmed.
            let browser = BrowserLikeClient(client)
            let signUp = try await browser.submit("/sign-up", to: "/sign-up", [("email", "smoke@example.com"), ("password", "correct horse battery")])
            #expect(signUp.status == 303)
            let user = try #require(try await harness.database.users.find(email: "smoke@example.com"))
            #expect(!user.emailVerified)
            // Confirming by mail is its own test; tokens need a confirmed address.
            _ = try await harness.database.users.update(id: user.id, [.emailVerified(true)], at: harness.clock.now)
            if try await browser.get("/account").status != 200 {
                #expect(try await browser.submit("/sign-in", to: "/sign-in", [("email", "smoke@example.com"), ("password", "correct horse battery")])
                    .status == 303)
            }

            // Code flow with PKCE (a first-party client: no consent page).
            let verifier = PKCE.generateVerifier()
            let query = URLEncodedForm(pairs: [("response_type", "code"), ("client_id", "smoke-app"), ("redirect_uri", Self.redirect),
                                               ("scope", "openid offline_access"), ("state", "st4te"), ("nonce", "n0nce"),
                                               ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]).encoded
            let authorize = try await browser.get("/oauth/authorize?" + query)
            // A custom-scheme redirect is confirmed once ("Continue to Smoke?"): submit the rendered form, its Continue button.
            let form = try #require(HTMLFormSubmission(authorize.text, action: "/oauth/authorize/decision"), "authorize answered \(authorize.status)")
            let decision = try await browser.post(form.action, try #require(form.fields(clicking: "decision", value: "allow")))
            let location = try #require(decision.headers["Location"], "the decision answered \(decision.status)")
            let callback = try #require(URLComponents(string: location))
            #expect(location.hasPrefix(Self.redirect))
            #expect(callback.queryItems?.first { $0.name == "state" }?.value == "st4te")
            let code = try #require(callback.queryItems?.first { $0.name == "code" }?.value)
            let tokens = try await client.post("/oauth/token", form: [("grant_type", "authorization_code"), ("code", code), ("client_id", "smoke-app"),
                                                                      ("redirect_uri", Self.redirect), ("code_verifier", verifier)])
            #expect(tokens.status == 200, "\(tokens.text)")
            let issued = try Self.json(tokens)
            let refreshToken = try #require(issued["refresh_token"] as? String)
            #expect(issued["access_token"] is String && issued["id_token"] is String)

            // Refresh: a new pair; the old refresh token is spent.
            let refreshed = try await client.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                                                                         ("client_id", "smoke-app")])
            #expect(refreshed.status == 200, "\(refreshed.text)")
            let rotated = try #require(try Self.json(refreshed)["refresh_token"] as? String)
            #expect(rotated != refreshToken)

            // Apple: the simulator's form posts to /auth/apple/callback; a new account with an Apple identity.
            let apple = BrowserLikeClient(client)
            let (appleCallback, final) = try await harness.signIn("apple", with: apple, email: "apple.smoke@example.com")
            #expect(appleCallback.status == 303 && final.status == 303, "\(appleCallback.status) \(final.status)")
            #expect(try await harness.identities(email: "apple.smoke@example.com").map(\.provider) == ["apple"])
            #expect(try await apple.get("/account").text.contains("apple.smoke@example.com"))
        }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}
