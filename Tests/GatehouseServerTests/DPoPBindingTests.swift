import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// RFC 9449 beyond the token endpoint, in-process: introspection and revocation of bound tokens,
/// `dpop_jkt` binding a code to a key (§10), at authorize and through PAR; RFC 8707 `resource` kept
/// with the code; and what discovery advertises of all of it.
@Suite struct DPoPBindingTests {
    static let base = "http://127.0.0.1:8080"
    static let notes = "https://notes.api.example", billing = "https://billing.api.example"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func form(_ oauth: OAuthFixture, _ path: String, _ form: [(String, String)], proofs: [String] = [],
              basic: (String, String)? = nil) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        for proof in proofs { headers.add("DPoP", proof) }
        if let basic { headers.set("Authorization", "Basic " + Data("\(basic.0):\(basic.1)".utf8).base64EncodedString()) }
        return try await oauth.post(path, form, headers: headers)
    }

    /// The public client's code: `extra` goes on the authorization request (`dpop_jkt`, `resource`).
    func publicCode(_ oauth: OAuthFixture, _ extra: [(String, String)]) async throws -> (code: String?, query: [String: String], verifier: String) {
        let verifier = PKCE.generateVerifier()
        let result = try await oauth.authorizeAndDecide([
            ("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"),
            ("scope", "openid email offline_access"), ("state", "s-1"), ("code_challenge", PKCE.challenge(for: verifier)),
            ("code_challenge_method", "S256")] + extra)
        return (result.query["code"], result.query, verifier)
    }

    func redeem(_ oauth: OAuthFixture, _ code: String, _ verifier: String, proof: String?, resource: String? = nil) async throws
        -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        var fields = [("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                      ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)]
        if let resource { fields.append(("resource", resource)) }
        return try await form(oauth, "/oauth/token", fields, proofs: proof.map { [$0] } ?? [])
    }

    @Test func introspectionNamesTheKeyAndTheTokenType() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let (code, _, verifier) = try await publicCode(oauth, [])
        let issued = try await redeem(oauth, try #require(code), verifier, proof: key.proof("POST", Self.base + "/oauth/token", iat: now))
        let access = try #require(issued.json["access_token"] as? String)
        let refresh = try #require(issued.json["refresh_token"] as? String)
        let basic = ("web-app", oauth.confidentialSecret)
        // A resource server registered to see every client's tokens: web-app here sees only its own.
        let foreign = try await form(oauth, "/oauth/introspect", [("token", access)], basic: basic)
        #expect(foreign.json["active"] as? Bool == false)
        let registry = oauth.gatehouse.app.services.tokens.registry
        let (_, secret) = try await registry.register(ClientRegistration(
            id: "notes-api", name: "Notes API", kind: .confidential, grantTypes: ["client_credentials"], scopes: [], firstParty: true,
            metadata: #"{"introspect_any":true}"#))
        let api = ("notes-api", try #require(secret))
        let bound = try await form(oauth, "/oauth/introspect", [("token", access)], basic: api)
        #expect(bound.json["active"] as? Bool == true && bound.json["token_type"] as? String == "DPoP")
        #expect((bound.json["cnf"] as? [String: Any])?["jkt"] as? String == key.thumbprint)
        // The API guide's example answer has exactly these members.
        let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/integrations/api.md"), encoding: .utf8)
        let example = try #require(guide.components(separatedBy: "<!-- introspection-example -->\n```json\n").last?
            .components(separatedBy: "```").first)
        let documented = try #require(try JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any])
        #expect(Set(documented.keys) == Set(bound.json.keys))
        #expect(documented["token_type"] as? String == bound.json["token_type"] as? String)
        let family = try await form(oauth, "/oauth/introspect", [("token", refresh), ("token_type_hint", "refresh_token")], basic: api)
        #expect(family.json["active"] as? Bool == true && family.json["token_type"] as? String == "refresh_token")
        #expect((family.json["cnf"] as? [String: Any])?["jkt"] as? String == key.thumbprint)
        let plain = try await form(oauth, "/oauth/token", [("grant_type", "client_credentials")], basic: basic)
        let plainSeen = try await form(oauth, "/oauth/introspect", [("token", try #require(plain.json["access_token"] as? String))], basic: api)
        #expect(plainSeen.json["token_type"] as? String == "Bearer" && plainSeen.json["cnf"] == nil)

        // A proof sent with introspection is checked: one for another endpoint, or replayed, is refused.
        let apiKey = try DPoPTestKey()
        let proved = apiKey.proof("POST", Self.base + "/oauth/introspect", iat: now)
        #expect(try await form(oauth, "/oauth/introspect", [("token", access)], proofs: [proved], basic: api).json["active"] as? Bool == true)
        let replayed = try await form(oauth, "/oauth/introspect", [("token", access)], proofs: [proved], basic: api)
        #expect(replayed.status == 400 && replayed.json["error"] as? String == "invalid_dpop_proof")
        let elsewhere = try await form(oauth, "/oauth/introspect", [("token", access)],
                                       proofs: [apiKey.proof("POST", Self.base + "/oauth/token", iat: now)], basic: api)
        #expect(elsewhere.status == 400 && elsewhere.json["error"] as? String == "invalid_dpop_proof")
    }

    @Test func aPublicClientRevokesABoundTokenOnlyWithItsKey() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey(), thief = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let revokeURL = Self.base + "/oauth/revoke"
        let (code, _, verifier) = try await publicCode(oauth, [])
        let issued = try await redeem(oauth, try #require(code), verifier, proof: key.proof("POST", Self.base + "/oauth/token", iat: now))
        let refresh = try #require(issued.json["refresh_token"] as? String)
        func familyRevoked() async throws -> Bool {
            try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))?.revokedAt != nil
        }
        // RFC 7009 answers 200 whatever happens; what matters is what was revoked.
        let bare = try await form(oauth, "/oauth/revoke", [("token", refresh), ("client_id", "native-app")])
        #expect(bare.status == 200)
        #expect(try await familyRevoked() == false)
        let stolen = try await form(oauth, "/oauth/revoke", [("token", refresh), ("client_id", "native-app")],
                                    proofs: [thief.proof("POST", revokeURL, iat: now)])
        #expect(stolen.status == 200)
        #expect(try await familyRevoked() == false)
        let malformed = try await form(oauth, "/oauth/revoke", [("token", refresh), ("client_id", "native-app")],
                                       proofs: [key.proof("GET", revokeURL, iat: now)])
        #expect(malformed.status == 400 && malformed.json["error"] as? String == "invalid_dpop_proof")
        #expect(try await familyRevoked() == false)
        let owner = try await form(oauth, "/oauth/revoke", [("token", refresh), ("client_id", "native-app")],
                                   proofs: [key.proof("POST", revokeURL, iat: now)])
        #expect(owner.status == 200)
        #expect(try await familyRevoked())
        let after = try await form(oauth, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "native-app")],
                                   proofs: [key.proof("POST", Self.base + "/oauth/token", iat: now)])
        #expect(after.json["error"] as? String == "invalid_grant")

        // A bound access token likewise; a confidential client's secret is enough for its own bound token.
        let (code2, _, verifier2) = try await publicCode(oauth, [])
        let second = try await redeem(oauth, try #require(code2), verifier2, proof: key.proof("POST", Self.base + "/oauth/token", iat: now))
        let access = try #require(second.json["access_token"] as? String)
        _ = try await form(oauth, "/oauth/revoke", [("token", access), ("client_id", "native-app")])
        #expect(try await oauth.client.get("/oauth/userinfo", headers: [
            "Authorization": "DPoP \(access)", "DPoP": key.proof("GET", Self.base + "/oauth/userinfo", iat: now, accessToken: access)]).status == 200)
        _ = try await form(oauth, "/oauth/revoke", [("token", access), ("client_id", "native-app")], proofs: [key.proof("POST", revokeURL, iat: now)])
        #expect(try await oauth.client.get("/oauth/userinfo", headers: [
            "Authorization": "DPoP \(access)", "DPoP": key.proof("GET", Self.base + "/oauth/userinfo", iat: now, accessToken: access)]).status == 401)
        let basic = ("web-app", oauth.confidentialSecret)
        let worker = try await form(oauth, "/oauth/token", [("grant_type", "client_credentials")],
                                    proofs: [key.proof("POST", Self.base + "/oauth/token", iat: now)], basic: basic)
        let workerToken = try #require(worker.json["access_token"] as? String)
        _ = try await form(oauth, "/oauth/revoke", [("token", workerToken)], basic: basic)
        let seen = try await form(oauth, "/oauth/introspect", [("token", workerToken)], basic: basic)
        #expect(seen.json["active"] as? Bool == false)
    }

    @Test func dpopJKTBindsTheCodeToTheKeyAtAuthorizeAndThroughPAR() async throws {
        let oauth = try await OAuthFixture.make()
        let key = try DPoPTestKey(), other = try DPoPTestKey()
        let now = oauth.gatehouse.clock.now
        let tokenURL = Self.base + "/oauth/token"

        let (withoutProof, _, v1) = try await publicCode(oauth, [("dpop_jkt", key.thumbprint)])
        let bare = try await redeem(oauth, try #require(withoutProof), v1, proof: nil)
        #expect(bare.status == 400 && bare.json["error"] as? String == "invalid_grant")
        let (withOther, _, v2) = try await publicCode(oauth, [("dpop_jkt", key.thumbprint)])
        let foreign = try await redeem(oauth, try #require(withOther), v2, proof: other.proof("POST", tokenURL, iat: now))
        #expect(foreign.status == 400 && foreign.json["error"] as? String == "invalid_grant")
        let (bound, _, v3) = try await publicCode(oauth, [("dpop_jkt", key.thumbprint)])
        let good = try await redeem(oauth, try #require(bound), v3, proof: key.proof("POST", tokenURL, iat: now))
        #expect(good.status == 200 && good.json["token_type"] as? String == "DPoP")
        #expect((OAuthFixture.claims(try #require(good.json["access_token"] as? String))["cnf"] as? [String: Any])?["jkt"] as? String
                == key.thumbprint)
        // A malformed thumbprint goes back to the client before any code exists.
        let (none, query, _) = try await publicCode(oauth, [("dpop_jkt", "not-a-thumbprint")])
        #expect(none == nil && query["error"] == "invalid_request")

        // Through PAR: the pushed dpop_jkt binds the code just the same.
        let basic = ("web-app", oauth.confidentialSecret)
        let pushed = try await form(oauth, "/oauth/par", [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect),
                                                          ("scope", "openid email"), ("state", "p"), ("dpop_jkt", key.thumbprint)], basic: basic)
        #expect(pushed.status == 201)
        let viaPAR = try await oauth.authorizeAndDecide([("client_id", "web-app"), ("request_uri", try #require(pushed.json["request_uri"] as? String))])
        let parCode = try #require(viaPAR.query["code"])
        let parFields = [("grant_type", "authorization_code"), ("code", parCode), ("redirect_uri", OAuthFixture.redirect)]
        let withoutKey = try await form(oauth, "/oauth/token", parFields, basic: basic)
        #expect(withoutKey.json["error"] as? String == "invalid_grant")
        let pushed2 = try await form(oauth, "/oauth/par", [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect),
                                                           ("scope", "openid email"), ("state", "p"), ("dpop_jkt", key.thumbprint)], basic: basic)
        let viaPAR2 = try await oauth.authorizeAndDecide([("client_id", "web-app"), ("request_uri", try #require(pushed2.json["request_uri"] as? String))])
        let withKey = try await form(oauth, "/oauth/token", [("grant_type", "authorization_code"), ("code", try #require(viaPAR2.query["code"])),
                                                             ("redirect_uri", OAuthFixture.redirect)],
                                     proofs: [key.proof("POST", tokenURL, iat: now)], basic: basic)
        #expect(withKey.status == 200 && withKey.json["token_type"] as? String == "DPoP")

        // RFC 9449 §10.1: a proof sent with the push binds the code as dpop_jkt would; a dpop_jkt of another key is refused.
        let parURL = Self.base + "/oauth/par"
        let parRequest = [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect), ("scope", "openid"), ("state", "p")]
        let proved = try await form(oauth, "/oauth/par", parRequest, proofs: [key.proof("POST", parURL, iat: now)], basic: basic)
        let viaProof = try await oauth.authorizeAndDecide([("client_id", "web-app"), ("request_uri", try #require(proved.json["request_uri"] as? String))])
        let proofFields = [("grant_type", "authorization_code"), ("code", try #require(viaProof.query["code"])), ("redirect_uri", OAuthFixture.redirect)]
        let otherKey = try await form(oauth, "/oauth/token", proofFields, proofs: [other.proof("POST", tokenURL, iat: now)], basic: basic)
        #expect(otherKey.json["error"] as? String == "invalid_grant")
        let mismatch = try await form(oauth, "/oauth/par", parRequest + [("dpop_jkt", other.thumbprint)],
                                      proofs: [key.proof("POST", parURL, iat: now)], basic: basic)
        #expect(mismatch.status == 400 && mismatch.json["error"] as? String == "invalid_dpop_proof")
    }

    @Test func theCodeKeepsItsResourcesAndTheTokenRequestStaysWithinThem() async throws {
        let oauth = try await OAuthFixture.make { $0.oauth.resources = [Self.notes, Self.billing] }
        func audience(_ answer: (status: Int, json: [String: Any], headers: HTTPHeaders)) -> String? {
            (answer.json["access_token"] as? String).flatMap { OAuthFixture.claims($0)["aud"] as? String }
        }
        // One API at authorize: the token is for it, named again or not; another API is refused.
        let (one, _, v1) = try await publicCode(oauth, [("resource", Self.notes)])
        let first = try await redeem(oauth, try #require(one), v1, proof: nil)
        #expect(audience(first) == Self.notes)
        // The family keeps what was authorized: its refreshes stay within it too.
        func refresh(_ token: String, _ resource: String?) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
            var fields = [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "native-app")]
            if let resource { fields.append(("resource", resource)) }
            return try await form(oauth, "/oauth/token", fields)
        }
        let refreshToken = try #require(first.json["refresh_token"] as? String)
        let elsewhere = try await refresh(refreshToken, Self.billing)
        #expect(elsewhere.status == 400 && elsewhere.json["error"] as? String == "invalid_target")
        let refreshed = try await refresh(refreshToken, nil)
        #expect(audience(refreshed) == Self.notes)
        #expect(audience(try await refresh(try #require(refreshed.json["refresh_token"] as? String), Self.notes)) == Self.notes)
        let (again, _, v2) = try await publicCode(oauth, [("resource", Self.notes)])
        let widened = try await redeem(oauth, try #require(again), v2, proof: nil, resource: Self.billing)
        #expect(widened.status == 400 && widened.json["error"] as? String == "invalid_target")
        // Two APIs pushed through PAR (resource repeated): the token request names the one its token is for.
        let basic = ("web-app", oauth.confidentialSecret)
        func parCode() async throws -> String {
            let pushed = try await form(oauth, "/oauth/par", [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect),
                                                              ("scope", "openid"), ("resource", Self.notes), ("resource", Self.billing)],
                                        basic: basic)
            #expect(pushed.status == 201, "\(pushed.json)")
            let approved = try await oauth.authorizeAndDecide([("client_id", "web-app"), ("request_uri", try #require(pushed.json["request_uri"] as? String))])
            return try #require(approved.query["code"])
        }
        func exchange(_ code: String, _ resource: String?) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
            var fields: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)]
            if let resource { fields.append(("resource", resource)) }
            return try await form(oauth, "/oauth/token", fields, basic: basic)
        }
        #expect(audience(try await exchange(try await parCode(), Self.billing)) == Self.billing)
        #expect(audience(try await exchange(try await parCode(), Self.notes)) == Self.notes)
        let unnamed = try await exchange(try await parCode(), nil)
        #expect(unnamed.status == 400 && unnamed.json["error"] as? String == "invalid_target")
        // An API the server does not know is refused at the push.
        let unknown = try await form(oauth, "/oauth/par", [("response_type", "code"), ("redirect_uri", OAuthFixture.redirect),
                                                           ("resource", "https://other.example")], basic: basic)
        #expect(unknown.status == 400 && unknown.json["error"] as? String == "invalid_target")
        // Each API's token is accepted by that API alone: the audience is exactly the one requested.
        let notesToken = try #require(try await exchange(try await parCode(), Self.notes).json["access_token"] as? String)
        let stored = try await oauth.gatehouse.app.services.tokens.validator.verifiedUnexpired(notesToken)
        #expect(stored?.audience == Self.notes)
    }

    @Test func discoveryAdvertisesDPoPPARAndResources() async throws {
        let oauth = try await OAuthFixture.make { $0.oauth.requirePushedAuthorizationRequests = true }
        let document = try await oauth.client.get("/.well-known/oauth-authorization-server")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document.body)) as? [String: Any])
        #expect(json["dpop_signing_alg_values_supported"] as? [String] == ["ES256", "EdDSA", "PS256", "RS256"])
        #expect(json["pushed_authorization_request_endpoint"] as? String == Self.base + "/oauth/par")
        #expect(json["require_pushed_authorization_requests"] as? Bool == true)
        #expect(json["introspection_endpoint"] as? String == Self.base + "/oauth/introspect")
        #expect(json["revocation_endpoint"] as? String == Self.base + "/oauth/revoke")
        #expect(json["authorization_response_iss_parameter_supported"] as? Bool == true)
    }
}
