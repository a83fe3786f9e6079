import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// RFC 9449 at the native sign-in endpoints (`response=tokens`): tokens bound to the proof's key, refused
/// proofs and the server nonce answered before anything is written, and the bound access token used at a
/// resource (userinfo) as RFC 9449 §7.1 shows, with `ath`.
@Suite struct NativeDPoPTests {
    static let base = ProviderHarness.base
    static let app = NativeGoogleSignInTests.app, rawNonce = NativeGoogleSignInTests.rawNonce

    /// A P-256 key making proofs as RFC 9449 §4.2 builds them.
    struct ProofKey {
        let key: GatehouseCrypto.SigningKey
        init() throws { key = try GatehouseCrypto.SigningKey.generate(.es256) }
        var thumbprint: String { try! key.publicJWK.publicKey.thumbprint() }

        func proof(_ method: String, _ uri: String, iat: Date, accessToken: String? = nil, nonce: String? = nil) -> String {
            let jwk = key.publicJWK
            let header: [String: JSONValue] = ["typ": .string("dpop+jwt"), "alg": .string(key.algorithm.rawValue), "jwk": .object([
                "kty": .string(jwk.keyType), "crv": .string(jwk.curve ?? ""), "x": .string(jwk.x ?? ""), "y": .string(jwk.y ?? "")])]
            var claims: [String: JSONValue] = ["jti": .string(UUID().uuidString), "htm": .string(method), "htu": .string(uri),
                                               "iat": .integer(Int64(iat.timeIntervalSince1970))]
            if let accessToken { claims["ath"] = .string(DPoPProof.accessTokenHash(accessToken)) }
            if let nonce { claims["nonce"] = .string(nonce) }
            let input = Base64URL.encode(JSONValue.object(header).jsonBytes) + "." + Base64URL.encode(JSONValue.object(claims).jsonBytes)
            return input + "." + Base64URL.encode(try! key.sign(Array(input.utf8)))
        }
    }

    func signIn(_ harness: ProviderHarness, proof: String?, email: String = "ada@example.com") async throws -> TestResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let proof { headers.set("DPoP", proof) }
        let fields = ["id_token": try NativeGoogleSignInTests.idToken(harness, email: email), "raw_nonce": Self.rawNonce,
                      "app": Self.app, "response": "tokens", "scope": "openid email offline_access"]
        return try await NativeGoogleSignInTests.post(harness.browser(), fields, headers: headers)
    }

    @Test func nativeTokensAreBoundToTheProofKeyAndUsableOnlyWithIt() async throws {
        let harness = try await NativeGoogleSignInTests.harness()
        let key = try ProofKey()
        let now = harness.clock.now
        let answer = try await signIn(harness, proof: key.proof("POST", Self.base + "/native/google", iat: now))
        let body = NativeAppleSignInTests.json(answer)
        #expect(answer.status == 200 && body["token_type"]?.stringValue == "DPoP", "\(answer.text)")
        let access = try #require(body["access_token"]?.stringValue)
        let claims = try #require(try await harness.app.services.tokens.validator.verifiedUnexpired(access))
        #expect(claims.confirmationJKT == key.thumbprint)
        let refresh = try #require(body["refresh_token"]?.stringValue)
        #expect(try await harness.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))?.dpopJKT == key.thumbprint)
        let stolen = try await harness.browser().post("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh),
                                                                       ("client_id", Self.app)])
        #expect(stolen.status == 400 && NativeAppleSignInTests.json(stolen)["error"]?.stringValue == "invalid_grant")

        // RFC 9449 §7.1: the resource request carries the token as `Authorization: DPoP` and a proof with its hash.
        let userinfo = Self.base + "/oauth/userinfo"
        let resource = try await harness.browser().send(.get, "/oauth/userinfo", headers: [
            "Authorization": "DPoP \(access)", "DPoP": key.proof("GET", userinfo, iat: now, accessToken: access)], body: [])
        #expect(resource.status == 200 && resource.text.contains("ada@example.com"))
        let withoutHash = try await harness.browser().send(.get, "/oauth/userinfo", headers: [
            "Authorization": "DPoP \(access)", "DPoP": key.proof("GET", userinfo, iat: now)], body: [])
        #expect(withoutHash.status == 401 && withoutHash.headers["WWW-Authenticate"]?.hasPrefix(#"DPoP error="invalid_dpop_proof""#) == true)
        let asBearer = try await harness.browser().send(.get, "/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"], body: [])
        #expect(asBearer.status == 401)
    }

    @Test func aRefusedProofOrAMissingNonceWritesNothing() async throws {
        let harness = try await ProviderHarness.make { $0.oauth.dpopNonceRequired = true }
        try await harness.app.services.keys.ensureSigningKey()
        for configured in harness.app.configuration.clients {
            try await harness.app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        let key = try ProofKey()
        let now = harness.clock.now
        let wrongURI = try await signIn(harness, proof: key.proof("POST", Self.base + "/oauth/token", iat: now))
        #expect(wrongURI.status == 400 && NativeAppleSignInTests.json(wrongURI)["error"]?.stringValue == "invalid_dpop_proof")
        let first = try await signIn(harness, proof: key.proof("POST", Self.base + "/native/google", iat: now))
        #expect(first.status == 400 && NativeAppleSignInTests.json(first)["error"]?.stringValue == "use_dpop_nonce")
        let nonce = try #require(first.headers["DPoP-Nonce"])
        #expect(try await harness.users() == 0)
        // The retry with the nonce signs in (the same ID token: the refused requests spent nothing).
        let retried = try await signIn(harness, proof: key.proof("POST", Self.base + "/native/google", iat: now, nonce: nonce))
        #expect(retried.status == 200 && NativeAppleSignInTests.json(retried)["token_type"]?.stringValue == "DPoP", "\(retried.text)")
        #expect(retried.headers["DPoP-Nonce"] != nil)
        #expect(try await harness.users() == 1)
    }

    @Test func aClientRegisteredForDPoPMustProveAtTheNativeEndpointToo() async throws {
        let harness = try await NativeGoogleSignInTests.harness()
        let registry = harness.app.services.tokens.registry
        var registration = try #require(harness.app.configuration.clients.first { $0.registration.id == Self.app }).registration
        registration.metadata = #"{"dpop_bound_access_tokens": true, "# + registration.metadata.drop { $0 != "{" }.dropFirst()
        try await registry.apply(registration, secret: nil)
        let refused = try await signIn(harness, proof: nil)
        #expect(refused.status == 400 && NativeAppleSignInTests.json(refused)["error"]?.stringValue == "invalid_dpop_proof")
        #expect(try await harness.users() == 0)
    }
}
