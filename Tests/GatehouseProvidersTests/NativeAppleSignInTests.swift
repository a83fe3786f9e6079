import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// Flow F3 in-process: the simulator plays Apple's native SDK (`nativeAuthorization`), the test plays
/// the iOS app posting to `POST /native/apple` or exchanging the token at `/oauth/token`.
@Suite struct NativeAppleSignInTests {
    static let app = "demo-native"
    static let bundleID = DemoSetup.nativeBundleID
    static let rawNonce = "raw-nonce-0123456789abcdef"

    /// Demo mode, with a signing key and the configured clients (the demo native app) registered as `gatehouse serve` does.
    static func harness() async throws -> ProviderHarness {
        let harness = try await ProviderHarness.make()
        try await harness.app.services.keys.ensureSigningKey()
        for configured in harness.app.configuration.clients {
            try await harness.app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        return harness
    }

    static func authorization(_ harness: ProviderHarness, bundleID: String = bundleID, email: String = "ada@example.com",
                              rawNonce: String = rawNonce) throws -> AppleSimulator.NativeAuthorization {
        try harness.simulator.apple.nativeAuthorization(bundleID: bundleID, email: email, name: "Ada Lovelace",
                                                        nonceSHA256Hex: AppleSimulator.nonceHash(rawNonce))
    }

    static func fields(_ native: AppleSimulator.NativeAuthorization, rawNonce: String = rawNonce, app: String = app,
                       response: String? = nil) -> [String: String] {
        var fields = ["identity_token": native.identityToken, "authorization_code": native.authorizationCode, "raw_nonce": rawNonce,
                      "given_name": native.givenName, "family_name": native.familyName, "app": app]
        fields["response"] = response
        return fields
    }

    static func postJSON(_ client: BrowserLikeClient, _ fields: [String: String]) async throws -> TestResponse {
        try await postRaw(client, Array(try JSONEncoder().encode(fields)))
    }

    static func postRaw(_ client: BrowserLikeClient, _ body: [UInt8], type: String = "application/json") async throws -> TestResponse {
        try await client.send(.post, "/native/apple", headers: ["Content-Type": type, "Accept": "application/json"], body: body)
    }

    static func json(_ response: TestResponse) -> [String: JSONValue] {
        if case .object(let members)? = JSONValue(parsing: response.body) { return members }
        return [:]
    }

    /// Nothing but the audit entry was written: no user, no identity, no session cookie.
    static func expectNothingWritten(_ harness: ProviderHarness, _ response: TestResponse, auditBefore: Int,
                                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await harness.users() == 0, sourceLocation: sourceLocation)
        #expect(try await harness.identities(email: "ada@example.com").isEmpty, sourceLocation: sourceLocation)
        #expect(response.headers["Set-Cookie"] == nil, sourceLocation: sourceLocation)
        #expect(try await harness.auditCount() == auditBefore + 1, "the refusal is audited", sourceLocation: sourceLocation)
    }

    @Test func validTokenStartsASessionForTheWebView() async throws {
        let harness = try await Self.harness()
        let app = harness.browser()
        let native = try Self.authorization(harness)
        let response = try await Self.postJSON(app, Self.fields(native))
        #expect(response.status == 200, "\(response.text)")
        let body = Self.json(response)
        #expect(body["email"]?.stringValue == "ada@example.com" && body["user_id"]?.stringValue != nil && body["created"] == .bool(true))
        #expect(response.headers["Set-Cookie"]?.contains("gatehouse_session=") == true)
        #expect(response.headers["Cache-Control"] == "no-store")
        let status = try await app.get("/native/session")
        #expect(status.status == 200 && status.text.contains("ada@example.com") && status.text.contains("apple"))
        let identity = try #require(try await harness.identities(email: "ada@example.com").first)
        #expect(identity.provider == "apple" && identity.subject == native.user && identity.displayName == "Ada Lovelace")
        #expect(identity.sealedRefreshToken != nil, "Apple's refresh token is kept (sealed) for revocation")
        // The next sign-in (Apple sends no name again) finds the same user.
        // A new Apple sign-in has a new nonce (the same token twice is a replay, refused).
        let again = try Self.authorization(harness, rawNonce: "second-raw-nonce-0123456789")
        var fields = Self.fields(again, rawNonce: "second-raw-nonce-0123456789")
        fields["given_name"] = nil; fields["family_name"] = nil
        let second = try await Self.postJSON(harness.browser(), fields)
        #expect(second.status == 200 && Self.json(second)["user_id"] == body["user_id"] && Self.json(second)["created"] == .bool(false))
        #expect(try await harness.users() == 1)
    }

    @Test func formBodyWorksToo() async throws {
        let harness = try await Self.harness()
        let native = try Self.authorization(harness)
        let body = URLEncodedForm(pairs: Self.fields(native).map { ($0.key, $0.value) }).encoded
        let response = try await Self.postRaw(harness.browser(), Array(body.utf8), type: "application/x-www-form-urlencoded")
        #expect(response.status == 200 && response.headers["Set-Cookie"] != nil, "\(response.text)")
    }

    @Test func validTokenWithResponseTokensGetsOAuthTokens() async throws {
        let harness = try await Self.harness()
        let native = try Self.authorization(harness)
        let response = try await Self.postJSON(harness.browser(), Self.fields(native, response: "tokens"))
        #expect(response.status == 200, "\(response.text)")
        let body = Self.json(response)
        #expect(body["token_type"]?.stringValue == "Bearer" && body["access_token"]?.stringValue != nil)
        #expect(body["id_token"]?.stringValue != nil && body["refresh_token"]?.stringValue != nil)
        #expect(response.headers["Set-Cookie"] == nil, "tokens, not a session")
        let userinfo = try await harness.browser().send(.get, "/oauth/userinfo",
                                                        headers: ["Authorization": "Bearer " + (body["access_token"]?.stringValue ?? "")],
                                                        body: [])
        #expect(userinfo.status == 200 && userinfo.text.contains("ada@example.com"))
    }

    @Test func tokenExchangeGrantIssuesTokens() async throws {
        let harness = try await Self.harness()
        let native = try Self.authorization(harness)
        let exchange: [(String, String)] = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", Self.app),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", native.identityToken),
            ("raw_nonce", Self.rawNonce),
        ]
        let response = try await harness.browser().post("/oauth/token", exchange)
        #expect(response.status == 200, "\(response.text)")
        let body = Self.json(response)
        #expect(body["issued_token_type"]?.stringValue == "urn:ietf:params:oauth:token-type:access_token")
        #expect(body["access_token"]?.stringValue != nil && body["id_token"]?.stringValue != nil)
        #expect(try await harness.users() == 1)
        // The same refusals as /native/apple: a wrong nonce is invalid_grant and writes nothing more.
        let other = try Self.authorization(harness, email: "grace@example.com")
        let refused = try await harness.browser().post("/oauth/token", exchange.map {
            $0.0 == "subject_token" ? ($0.0, other.identityToken) : $0.0 == "raw_nonce" ? ($0.0, "another") : $0
        })
        #expect(refused.status == 400 && Self.json(refused)["error"]?.stringValue == "invalid_grant")
        #expect(try await harness.users() == 1)
        let wrongType = try await harness.browser().post("/oauth/token", exchange.map {
            $0.0 == "subject_token_type" ? ($0.0, "urn:ietf:params:oauth:token-type:access_token") : $0
        })
        #expect(wrongType.status == 400 && Self.json(wrongType)["error"]?.stringValue == "invalid_request")
    }

    @Test func tokenExchangeKeepsApplesFirstSignInName() async throws {
        let harness = try await Self.harness()
        let native = try Self.authorization(harness)
        let response = try await harness.browser().post("/oauth/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", Self.app),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", native.identityToken),
            ("raw_nonce", Self.rawNonce), ("given_name", "Ada"), ("family_name", "Lovelace"), ("scope", "openid profile"),
        ])
        #expect(response.status == 200, "\(response.text)")
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        #expect(user.displayName == "Ada Lovelace", "the name Apple gave the app once is kept")
        let idToken = try #require(Self.json(response)["id_token"]?.stringValue)
        let parts = idToken.split(separator: ".")
        let claims = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(parts[1])) ?? [])) as? [String: Any]
        #expect(claims?["name"] as? String == "Ada Lovelace")
        #expect(try await harness.identities(email: "ada@example.com").first?.displayName == "Ada Lovelace")
    }

    @Test func tokenExchangeRefusesAClientThatIsNotANativeApp() async throws {
        let harness = try await Self.harness()
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "web-only", name: "Web", kind: .public, redirectURIs: ["https://rp.example/cb"]))
        let native = try Self.authorization(harness)
        let response = try await harness.browser().post("/oauth/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", "web-only"),
            ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", native.identityToken),
            ("raw_nonce", Self.rawNonce),
        ])
        #expect(response.status == 400 && Self.json(response)["error"]?.stringValue == "unauthorized_client")
        #expect(try await harness.users() == 0)
    }

    enum Attack: String, CaseIterable, Sendable {
        case wrongAudience, nonceMismatch, expired, unknownKey, unregisteredApp, missingToken, missingNonce, missingApp, malformedJSON,
             wrongMediaType, unknownCode, foreignOrigin
    }

    @Test(arguments: Attack.allCases)
    func attacksAreRefusedAndWriteNothing(_ attack: Attack) async throws {
        let harness = try await Self.harness()
        let client = harness.browser()
        var native = try Self.authorization(harness)
        var fields = Self.fields(native)
        var raw: [UInt8]?
        var type = "application/json"
        var headers: HTTPHeaders?
        let expected: (status: Int, error: String)
        switch attack {
        case .wrongAudience:
            native = try Self.authorization(harness, bundleID: "com.example.someone.else")
            fields = Self.fields(native)
            expected = (401, "invalid_token")
        case .nonceMismatch:
            fields["raw_nonce"] = "not-the-nonce"
            expected = (401, "invalid_token")
        case .expired:
            harness.clock.advance(2 * 86_400)
            expected = (401, "invalid_token")
        case .unknownKey:
            let stranger = try RSASigningKey.generate()
            let payload = try CompactJWS(native.identityToken).payload
            guard case .object(let claims)? = JSONValue(parsing: payload) else { Issue.record("claims"); return }
            fields["identity_token"] = try stranger.signJWT(claims, type: nil)
            expected = (401, "invalid_token")
        case .unregisteredApp:
            fields["app"] = "no-such-app"
            expected = (400, "invalid_client")
        case .missingToken:
            fields["identity_token"] = nil
            expected = (400, "invalid_request")
        case .missingNonce:
            fields["raw_nonce"] = nil
            expected = (400, "invalid_request")
        case .missingApp:
            fields["app"] = nil
            expected = (400, "invalid_request")
        case .malformedJSON:
            raw = Array(#"{"identity_token": "#.utf8)
            expected = (400, "invalid_request")
        case .wrongMediaType:
            raw = Array("identity_token=x".utf8)
            type = "text/plain"
            expected = (415, "invalid_request")
        case .unknownCode:
            // A code Apple does not know (spent, expired or made up): Apple refuses it, nothing is written.
            fields["authorization_code"] = "c-unknown.0.native"
            expected = (400, "invalid_grant")
        case .foreignOrigin:
            headers = ["Content-Type": "application/json", "Origin": "https://evil.example"]
            expected = (403, "invalid_request")
        }
        let auditBefore = try await harness.auditCount()
        let response: TestResponse
        if let headers {
            response = try await client.send(.post, "/native/apple", headers: headers, body: Array(try JSONEncoder().encode(fields)))
        } else if let raw {
            response = try await Self.postRaw(client, raw, type: type)
        } else {
            response = try await Self.postJSON(client, fields)
        }
        #expect(response.status == expected.status, "\(attack): \(response.text)")
        let body = Self.json(response)
        #expect(body["error"]?.stringValue == expected.error, "\(attack): \(response.text)")
        let description = body["error_description"]?.stringValue ?? ""
        #expect(!description.isEmpty, "a precise description")
        try await Self.expectNothingWritten(harness, response, auditBefore: auditBefore)
        #expect(try await client.get("/native/session").status == 401)
    }
}
