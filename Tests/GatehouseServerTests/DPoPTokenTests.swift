import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// RFC 9449 at the token endpoint and userinfo, in-process: bound tokens, a stolen refresh token,
/// replayed and malformed proofs, nonces, the per-client requirement.
@Suite struct DPoPTokenTests {
    static let tokenURL = "http://127.0.0.1:8080/oauth/token"
    static let userinfoURL = "http://127.0.0.1:8080/oauth/userinfo"

    /// The public client's code exchange, with `proof` in the DPoP header (nil: none).
    func exchange(_ oauth: OAuthFixture, proof: String?) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        let (code, verifier) = try await oauth.publicCode()
        return try await tokenRequest(oauth, [("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                              ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)], proofs: proof.map { [$0] } ?? [])
    }

    func tokenRequest(_ oauth: OAuthFixture, _ form: [(String, String)], proofs: [String], basic: (String, String)? = nil) async throws
        -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        for proof in proofs { headers.add("DPoP", proof) }
        if let basic { headers.set("Authorization", "Basic " + Data("\(basic.0):\(basic.1)".utf8).base64EncodedString()) }
        return try await oauth.post("/oauth/token", form, headers: headers)
    }

    func refreshRequest(_ oauth: OAuthFixture, _ token: String, proof: String?) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        try await tokenRequest(oauth, [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "native-app")],
                               proofs: proof.map { [$0] } ?? [])
    }

    @Test func tokensAreBoundToTheProofKeyAndAStolenRefreshTokenIsUselessWithoutIt() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey(), thief = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let issued = try await exchange(oauth, proof: key.proof("POST", Self.tokenURL, iat: now))
        #expect(issued.status == 200)
        #expect(issued.json["token_type"] as? String == "DPoP")
        let access = try #require(issued.json["access_token"] as? String)
        let refresh = try #require(issued.json["refresh_token"] as? String)
        #expect((OAuthFixture.claims(access)["cnf"] as? [String: Any])?["jkt"] as? String == key.thumbprint)

        // The thief has the refresh token but not the key: without a proof, or with a proof of its own key, refused.
        let bare = try await refreshRequest(oauth, refresh, proof: nil)
        #expect(bare.status == 400 && bare.json["error"] as? String == "invalid_grant")
        let foreign = try await refreshRequest(oauth, refresh, proof: thief.proof("POST", Self.tokenURL, iat: now))
        #expect(foreign.status == 400 && foreign.json["error"] as? String == "invalid_grant")
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))?.generation == 0,
                "not rotated")

        // The owner still refreshes (the refused attempts rotated nothing), and the successor stays bound.
        let owner = try await refreshRequest(oauth, refresh, proof: key.proof("POST", Self.tokenURL, iat: now))
        #expect(owner.status == 200 && owner.json["token_type"] as? String == "DPoP")
        let successor = try #require(owner.json["refresh_token"] as? String)
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: successor))?.dpopJKT == key.thumbprint)
        let stolenSuccessor = try await refreshRequest(oauth, successor, proof: nil)
        #expect(stolenSuccessor.json["error"] as? String == "invalid_grant")
    }

    @Test func aProofIsSingleUse() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey()
        let proof = key.proof("POST", Self.tokenURL, iat: oauth.gatehouse.clock.now)
        let first = try await exchange(oauth, proof: proof)
        #expect(first.status == 200)
        let refresh = try #require(first.json["refresh_token"] as? String)
        let replay = try await refreshRequest(oauth, refresh, proof: proof)
        #expect(replay.status == 400 && replay.json["error"] as? String == "invalid_dpop_proof")
        // The same jti from another key is another proof (RFC 9449 §11.1 scopes jti per key).
        let other = try DPoPTestKey()
        let unbound = try await tokenRequest(oauth, [("grant_type", "client_credentials")],
                                             proofs: [other.proof("POST", Self.tokenURL, iat: oauth.gatehouse.clock.now, jti: "fixed-jti")],
                                             basic: ("web-app", oauth.confidentialSecret))
        #expect(unbound.status == 200)
    }

    @Test func malformedOrMismatchedProofsAreInvalidDPoPProof() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let privateJWK = try JSONDecoder().decode([String: JSONValue].self, from: Data(key.key.privateJWKData()))
        let cases: [(String, [String])] = [
            ("wrong htm", [key.proof("GET", Self.tokenURL, iat: now)]),
            ("wrong htu", [key.proof("POST", "http://127.0.0.1:8080/oauth/userinfo", iat: now)]),
            ("too old", [key.proof("POST", Self.tokenURL, iat: now.addingTimeInterval(-120))]),
            ("from the future", [key.proof("POST", Self.tokenURL, iat: now.addingTimeInterval(60))]),
            ("typ JWT", [key.proof("POST", Self.tokenURL, iat: now, header: ["typ": .string("JWT")])]),
            ("alg none", [key.proof("POST", Self.tokenURL, iat: now, header: ["alg": .string("none")])]),
            ("alg HS256", [key.proof("POST", Self.tokenURL, iat: now, header: ["alg": .string("HS256")])]),
            ("private jwk", [key.proof("POST", Self.tokenURL, iat: now, header: ["jwk": .object(privateJWK)])]),
            ("no jwk", [key.proof("POST", Self.tokenURL, iat: now, header: ["jwk": .string("x")])]),
            ("another key's jwk", [key.proof("POST", Self.tokenURL, iat: now, header: ["jwk": .object(try DPoPTestKey().publicJWK)])]),
            ("no jti", [key.proof("POST", Self.tokenURL, iat: now, claims: ["jti": .null])]),
            ("two headers", [key.proof("POST", Self.tokenURL, iat: now), key.proof("POST", Self.tokenURL, iat: now)]),
            ("not a JWT", ["garbage"]),
        ]
        for (name, proofs) in cases {
            let answer = try await tokenRequest(oauth, [("grant_type", "client_credentials")], proofs: proofs,
                                                basic: ("web-app", oauth.confidentialSecret))
            #expect(answer.status == 400, "\(name)")
            #expect(answer.json["error"] as? String == "invalid_dpop_proof", "\(name)")
        }
        // The htu is compared normalised: case of scheme and host, the default port, query and fragment.
        let normalised = try await tokenRequest(oauth, [("grant_type", "client_credentials")],
                                                proofs: [key.proof("POST", "HTTP://127.0.0.1:8080/oauth/token?x=1#f", iat: now)],
                                                basic: ("web-app", oauth.confidentialSecret))
        #expect(normalised.status == 200 && normalised.json["token_type"] as? String == "DPoP")
    }

    @Test func userinfoNeedsAProofWithTheTokensHashForABoundToken() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let issued = try await exchange(oauth, proof: key.proof("POST", Self.tokenURL, iat: now))
        let access = try #require(issued.json["access_token"] as? String)
        func userinfo(_ scheme: String, _ proofs: [String]) async throws -> TestResponse {
            var headers: HTTPHeaders = ["Authorization": "\(scheme) \(access)"]
            for proof in proofs { headers.add("DPoP", proof) }
            return try await oauth.client.get("/oauth/userinfo", headers: headers)
        }
        let good = try await userinfo("DPoP", [key.proof("GET", Self.userinfoURL, iat: now, accessToken: access)])
        #expect(good.status == 200 && good.text.contains("ada@example.com"))
        // Downgraded to Bearer (the proof stripped): refused.
        let bearer = try await userinfo("Bearer", [])
        #expect(bearer.status == 401)
        let noAth = try await userinfo("DPoP", [key.proof("GET", Self.userinfoURL, iat: now)])
        #expect(noAth.status == 401 && noAth.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true)
        #expect(noAth.headers["WWW-Authenticate"]?.contains("algs=\"ES256") == true)
        let otherToken = try await userinfo("DPoP", [key.proof("GET", Self.userinfoURL, iat: now, accessToken: access + "x")])
        #expect(otherToken.status == 401)
        let thief = try DPoPTestKey()
        let foreign = try await userinfo("DPoP", [thief.proof("GET", Self.userinfoURL, iat: now, accessToken: access)])
        #expect(foreign.status == 401 && foreign.text.contains("invalid_dpop_proof"))
        let noProof = try await userinfo("DPoP", [])
        #expect(noProof.status == 401)
        // An unbound token stays a Bearer token.
        let plain = try await tokenRequest(oauth, [("grant_type", "password"), ("username", "ada@example.com"),
                                                   ("password", "correct horse battery"), ("scope", "openid email")],
                                           proofs: [], basic: ("web-app", oauth.confidentialSecret))
        let plainToken = try #require(plain.json["access_token"] as? String)
        #expect(plain.json["token_type"] as? String == "Bearer")
        #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(plainToken)"]).status == 200)
    }

    @Test func serverNoncesAreRequiredWhenConfigured() async throws {
        let oauth = try await OAuthFixture.make { $0.oauth.dpopNonceRequired = true }
        let key = try DPoPTestKey()
        let clock = oauth.gatehouse.clock
        let first = try await exchange(oauth, proof: key.proof("POST", Self.tokenURL, iat: clock.now))
        #expect(first.status == 400 && first.json["error"] as? String == "use_dpop_nonce")
        let nonce = try #require(first.headers["DPoP-Nonce"])
        // The refused request spent nothing: the retry with the nonce gets the tokens (a new code: the first was not redeemed).
        let second = try await exchange(oauth, proof: key.proof("POST", Self.tokenURL, iat: clock.now, nonce: nonce))
        #expect(second.status == 200 && second.json["token_type"] as? String == "DPoP")
        let refresh = try #require(second.json["refresh_token"] as? String)
        #expect(second.headers["DPoP-Nonce"] != nil)
        // Two nonce periods later the old nonce is refused, and the answer carries a fresh one.
        clock.advance(2 * DPoPNonces.step)
        let stale = try await refreshRequest(oauth, refresh, proof: key.proof("POST", Self.tokenURL, iat: clock.now, nonce: nonce))
        #expect(stale.json["error"] as? String == "use_dpop_nonce")
        let fresh = try #require(stale.headers["DPoP-Nonce"])
        #expect(fresh != nonce)
        let retried = try await refreshRequest(oauth, refresh, proof: key.proof("POST", Self.tokenURL, iat: clock.now, nonce: fresh))
        #expect(retried.status == 200)
    }

    @Test func aClientRegisteredForDPoPMustSendProofsAndConfidentialRefreshTokensStayUnbound() async throws {
        let oauth = try await OAuthFixture.make()
        let registry = oauth.gatehouse.app.services.tokens.registry
        let (_, secret) = try await registry.register(ClientRegistration(
            id: "api-worker", name: "Worker", kind: .confidential, grantTypes: ["client_credentials", "password", "refresh_token"],
            scopes: [], firstParty: true, metadata: #"{"dpop_bound_access_tokens":true}"#))
        let basic = ("api-worker", try #require(secret))
        let refused = try await tokenRequest(oauth, [("grant_type", "client_credentials")], proofs: [], basic: basic)
        #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_dpop_proof")
        let key = try DPoPTestKey(.edDSA)
        let now = oauth.gatehouse.clock.now
        let password = try await tokenRequest(oauth, [("grant_type", "password"), ("username", "ada@example.com"),
                                                      ("password", "correct horse battery"), ("scope", "openid")],
                                              proofs: [key.proof("POST", Self.tokenURL, iat: now)], basic: basic)
        #expect(password.status == 200 && password.json["token_type"] as? String == "DPoP")
        let refresh = try #require(password.json["refresh_token"] as? String)
        // A confidential client's refresh token is bound by its secret, not by the key (RFC 9449 §5) — but this
        // client still needs a proof, and its new access token is bound to the key of that proof.
        #expect(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))?.dpopJKT == nil)
        let newKey = try DPoPTestKey()
        let refreshed = try await tokenRequest(oauth, [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                               proofs: [newKey.proof("POST", Self.tokenURL, iat: now)], basic: basic)
        #expect(refreshed.status == 200)
        let access = try #require(refreshed.json["access_token"] as? String)
        #expect((OAuthFixture.claims(access)["cnf"] as? [String: Any])?["jkt"] as? String == newKey.thumbprint)
        // Introspection tells a resource server which key the token is bound to.
        let seen = try await oauth.post("/oauth/introspect", [("token", access)], headers: [
            "Content-Type": "application/x-www-form-urlencoded",
            "Authorization": "Basic " + Data("api-worker:\(basic.1)".utf8).base64EncodedString()])
        #expect(seen.json["active"] as? Bool == true)
        #expect((seen.json["cnf"] as? [String: Any])?["jkt"] as? String == newKey.thumbprint)
    }

    @Test func discoveryAdvertisesTheProofAlgorithms() async throws {
        let oauth = try await OAuthFixture.make()
        let document = try await oauth.client.get("/.well-known/openid-configuration")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document.body)) as? [String: Any])
        #expect(json["dpop_signing_alg_values_supported"] as? [String] == DPoPVerifier.algorithms.map(\.rawValue))
        #expect((json["dpop_signing_alg_values_supported"] as? [String])?.contains("ES256") == true)
    }
}
