import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// Native Google sign-in in-process: the simulator plays Google's native SDK (`nativeIDToken`: `azp` the app's
/// own client, `aud` the server client when asked for), the test plays the app posting to `POST /native/google`
/// or exchanging the token at `/oauth/token`. The same refusals as native Apple.
@Suite struct NativeGoogleSignInTests {
    static let app = "demo-native"
    static let rawNonce = "raw-nonce-google-0123456789"

    static func harness() async throws -> ProviderHarness { try await NativeAppleSignInTests.harness() }

    /// As GoogleSignIn on iOS with a server client id (Credential Manager is the same shape): aud = the
    /// server's Google client, azp = the app's.
    static func idToken(_ harness: ProviderHarness, clientID: String = DemoSetup.nativeGoogleClientID, serverClientID: String? = nil,
                        email: String = "ada@example.com", rawNonce: String = rawNonce) throws -> String {
        let server = serverClientID ?? harness.app.configuration.providers.google?.clientID
        return try harness.simulator.google.nativeIDToken(clientID: clientID, serverClientID: server, email: email,
                                                          nonce: SHA256.hex(rawNonce))
    }

    static func post(_ client: BrowserLikeClient, _ fields: [String: String], headers: HTTPHeaders = ["Content-Type": "application/json"]) async throws -> TestResponse {
        try await client.send(.post, "/native/google", headers: headers, body: Array(try JSONEncoder().encode(fields)))
    }

    @Test func validTokenStartsASessionAndFindsTheSameUserAgain() async throws {
        let harness = try await Self.harness()
        let app = harness.browser()
        let response = try await Self.post(app, ["id_token": try Self.idToken(harness), "raw_nonce": Self.rawNonce, "app": Self.app])
        #expect(response.status == 200, "\(response.text)")
        let body = NativeAppleSignInTests.json(response)
        #expect(body["email"]?.stringValue == "ada@example.com" && body["created"] == .bool(true))
        #expect(response.headers["Set-Cookie"]?.contains("gatehouse_session=") == true && response.headers["Cache-Control"] == "no-store")
        let status = try await app.get("/native/session")
        #expect(status.status == 200 && status.text.contains("google"))
        // The same Google account through the web flow's subject: one user, one identity.
        let again = try await Self.post(harness.browser(), ["id_token": try Self.idToken(harness, serverClientID: DemoSetup.nativeGoogleClientID),
                                                            "raw_nonce": Self.rawNonce, "app": Self.app])
        #expect(again.status == 200 && NativeAppleSignInTests.json(again)["user_id"] == body["user_id"])
        #expect(try await harness.users() == 1)
        #expect(try await harness.identities(email: "ada@example.com").map(\.provider) == ["google"])
    }

    @Test func responseTokensAndTheTokenExchangeIssueTokens() async throws {
        let harness = try await Self.harness()
        let tokens = try await Self.post(harness.browser(), ["id_token": try Self.idToken(harness), "raw_nonce": Self.rawNonce,
                                                             "app": Self.app, "response": "tokens"])
        #expect(tokens.status == 200 && NativeAppleSignInTests.json(tokens)["access_token"]?.stringValue != nil, "\(tokens.text)")
        #expect(tokens.headers["Set-Cookie"] == nil)
        let exchange = try await harness.browser().post("/oauth/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", Self.app),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", try Self.idToken(harness, email: "grace@example.com")),
            ("raw_nonce", Self.rawNonce),
        ])
        #expect(exchange.status == 200, "\(exchange.text)")
        #expect(NativeAppleSignInTests.json(exchange)["issued_token_type"]?.stringValue == "urn:ietf:params:oauth:token-type:access_token")
        let refused = try await harness.browser().post("/oauth/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", Self.app),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", try Self.idToken(harness, email: "eve@example.com")),
            ("raw_nonce", "another-nonce"),
        ])
        #expect(refused.status == 400 && NativeAppleSignInTests.json(refused)["error"]?.stringValue == "invalid_grant")
        #expect(try await harness.users() == 2)
    }

    @Test func anIDTokenSignsInOnce() async throws {
        let harness = try await Self.harness()
        let fields = ["id_token": try Self.idToken(harness), "raw_nonce": Self.rawNonce, "app": Self.app]
        #expect(try await Self.post(harness.browser(), fields).status == 200)
        let replay = try await Self.post(harness.browser(), fields)
        #expect(replay.status == 400 && NativeAppleSignInTests.json(replay)["error"]?.stringValue == "invalid_grant")
        #expect(replay.headers["Set-Cookie"] == nil)
    }

    @Test func theSimulatorServesTheNativeSDKsAnswer() async throws {
        let harness = try await Self.harness()
        let response = try await harness.browser().post("/_sim/google/native/sign-in", [
            ("client_id", DemoSetup.nativeGoogleClientID), ("email", "sdk@example.com"), ("nonce", SHA256.hex(Self.rawNonce)),
        ])
        let token = try #require(NativeAppleSignInTests.json(response)["id_token"]?.stringValue, "\(response.text)")
        let signIn = try await Self.post(harness.browser(), ["id_token": token, "raw_nonce": Self.rawNonce, "app": Self.app])
        #expect(signIn.status == 200, "\(signIn.text)")
    }

    enum Attack: String, CaseIterable, Sendable {
        case wrongAudience, wrongAuthorizedParty, nonceMismatch, expired, unknownKey, unregisteredApp, appWithoutGoogle, missingToken,
             missingNonce, malformedToken, malformedJSON, foreignOrigin
    }

    @Test(arguments: Attack.allCases)
    func attacksAreRefusedAndWriteNothing(_ attack: Attack) async throws {
        let harness = try await Self.harness()
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "apple-only", name: "Apple only", kind: .public, redirectURIs: ["com.example.a:/cb"],
            metadata: #"{"callback_schemes": ["exa"], "bundle_ids": ["com.example.a"]}"#))
        var fields = ["id_token": try Self.idToken(harness), "raw_nonce": Self.rawNonce, "app": Self.app]
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        var raw: [UInt8]?
        let expected: (status: Int, error: String)
        switch attack {
        case .wrongAudience:
            fields["id_token"] = try Self.idToken(harness, serverClientID: "someone-else.apps.googleusercontent.com")
            expected = (401, "invalid_token")
        case .wrongAuthorizedParty:
            // Issued to the server's client (a registered audience) but requested by another app.
            fields["id_token"] = try Self.idToken(harness, clientID: "another-app.apps.googleusercontent.com")
            expected = (401, "invalid_token")
        case .nonceMismatch:
            fields["raw_nonce"] = "not-the-nonce"
            expected = (401, "invalid_token")
        case .expired:
            harness.clock.advance(2 * 3_600)
            expected = (401, "invalid_token")
        case .unknownKey:
            let stranger = try RSASigningKey.generate()
            guard case .object(let claims)? = JSONValue(parsing: try CompactJWS(fields["id_token"]!).payload) else { Issue.record("claims"); return }
            fields["id_token"] = try stranger.signJWT(claims, type: "JWT")
            expected = (401, "invalid_token")
        case .unregisteredApp:
            fields["app"] = "no-such-app"
            expected = (400, "invalid_client")
        case .appWithoutGoogle:
            fields["app"] = "apple-only"
            expected = (400, "invalid_client")
        case .missingToken:
            fields["id_token"] = nil
            expected = (400, "invalid_request")
        case .missingNonce:
            fields["raw_nonce"] = nil
            expected = (400, "invalid_request")
        case .malformedToken:
            fields["id_token"] = "not.a.jwt"
            expected = (401, "invalid_token")
        case .malformedJSON:
            raw = Array(#"{"id_token": "#.utf8)
            expected = (400, "invalid_request")
        case .foreignOrigin:
            headers.set("Origin", "https://evil.example")
            expected = (403, "invalid_request")
        }
        let client = harness.browser()
        let response = raw != nil
            ? try await client.send(.post, "/native/google", headers: headers, body: raw!)
            : try await Self.post(client, fields, headers: headers)
        #expect(response.status == expected.status, "\(attack): \(response.text)")
        let body = NativeAppleSignInTests.json(response)
        #expect(body["error"]?.stringValue == expected.error, "\(attack): \(response.text)")
        let description = body["error_description"]?.stringValue ?? ""
        #expect(!description.isEmpty, "a precise description")
        #expect(try await harness.users() == 0 && response.headers["Set-Cookie"] == nil)
        #expect(try await client.get("/native/session").status == 401)
    }
}
