import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseTesting
import Testing

@Suite struct OAuthTokenEndpointTests {
    @Test func clientAuthenticationFailuresAre401WithChallenge() async throws {
        let oauth = try await OAuthFixture.make()
        let wrongSecret = try await oauth.token([("grant_type", "client_credentials")], basic: ("web-app", "nope"))
        #expect(wrongSecret.status == 401 && wrongSecret.json["error"] as? String == "invalid_client")
        #expect(wrongSecret.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        let unknown = try await oauth.token([("grant_type", "client_credentials"), ("client_id", "ghost"), ("client_secret", "x")])
        #expect(unknown.status == 401)
        var malformed: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic !!!notbase64"]
        #expect(try await oauth.post("/oauth/token", [("grant_type", "client_credentials")], headers: malformed).status == 401)
        malformed.set("Authorization", "Basic " + Data("no-colon".utf8).base64EncodedString())
        #expect(try await oauth.post("/oauth/token", [("grant_type", "client_credentials")], headers: malformed).status == 401)
        let confidentialWithoutSecret = try await oauth.token([("grant_type", "client_credentials"), ("client_id", "web-app")])
        #expect(confidentialWithoutSecret.status == 401)
        let both = try await oauth.token([("grant_type", "client_credentials"), ("client_secret", oauth.confidentialSecret)],
                                         basic: ("web-app", oauth.confidentialSecret))
        #expect(both.status == 400 && both.json["error"] as? String == "invalid_request")
    }

    @Test func malformedRequestsAreInvalidRequest() async throws {
        let oauth = try await OAuthFixture.make()
        let duplicate = try await oauth.token([("grant_type", "client_credentials"), ("grant_type", "client_credentials")],
                                              basic: ("web-app", oauth.confidentialSecret))
        #expect(duplicate.status == 400 && duplicate.json["error"] as? String == "invalid_request")
        let missing = try await oauth.token([], basic: ("web-app", oauth.confidentialSecret))
        #expect(missing.json["error"] as? String == "invalid_request")
        let json = try await oauth.post("/oauth/token", [("grant_type", "client_credentials")], headers: ["Content-Type": "application/json"])
        #expect(json.status == 400 && json.json["error"] as? String == "invalid_request")
        let unsupported = try await oauth.token([("grant_type", "urn:example:magic")], basic: ("web-app", oauth.confidentialSecret))
        #expect(unsupported.json["error"] as? String == "unsupported_grant_type")
        let badEncoding = try await oauth.client.send(.post, "/oauth/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                      body: Array("grant_type=%ZZ".utf8))
        #expect(badEncoding.status == 400 && badEncoding.text.contains("invalid_request"))
    }

    @Test func clientCredentialsGrant() async throws {
        let oauth = try await OAuthFixture.make()
        let response = try await oauth.token([("grant_type", "client_credentials"), ("scope", "api.read")], basic: ("web-app", oauth.confidentialSecret))
        #expect(response.status == 200 && response.json["refresh_token"] == nil && response.json["id_token"] == nil)
        let claims = OAuthFixture.claims(try #require(response.json["access_token"] as? String))
        #expect(claims["sub"] as? String == "web-app" && claims["scope"] as? String == "api.read")
        let openid = try await oauth.token([("grant_type", "client_credentials"), ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        #expect(openid.json["error"] as? String == "invalid_scope")
        let publicClient = try await oauth.token([("grant_type", "client_credentials"), ("client_id", "native-app")])
        #expect(publicClient.json["error"] as? String == "unauthorized_client")
    }

    @Test func passwordGrantOnlyForFirstPartyClientsWithIt() async throws {
        let oauth = try await OAuthFixture.make()
        let ok = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                        ("scope", "openid email")], basic: ("web-app", oauth.confidentialSecret))
        #expect(ok.status == 200 && ok.json["refresh_token"] != nil && ok.json["id_token"] != nil)
        let notAllowed = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                                ("client_id", "native-app")])
        #expect(notAllowed.json["error"] as? String == "unauthorized_client", "first-party but without the grant")
        let thirdParty = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery")],
                                               basic: ("partner", oauth.thirdPartySecret))
        #expect(thirdParty.json["error"] as? String == "unauthorized_client")
        let wrong = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "wrong password!")],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(wrong.status == 400 && wrong.json["error"] as? String == "invalid_grant")
    }

    @Test func passwordGrantSharesTheSignInRateLimit() async throws {
        let oauth = try await OAuthFixture.make()
        var last: (status: Int, json: [String: Any], headers: HTTPHeaders) = (0, [:], HTTPHeaders())
        for _ in 0..<6 {
            last = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "wrong password!")],
                                         basic: ("web-app", oauth.confidentialSecret))
        }
        #expect(last.status == 429 && Int(last.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(try await oauth.gatehouse.auditTypes(email: "ada@example.com").filter { $0 == "sign_in.failed" }.count == 5)
    }

    @Test func refreshAfterRevokeAndRefreshOfAnotherClient() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        let refresh = try #require(tokens.json["refresh_token"] as? String)
        let otherClient = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "native-app")])
        #expect(otherClient.json["error"] as? String == "invalid_grant")
        let widen = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("scope", "openid email")],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(widen.json["error"] as? String == "invalid_scope")
        let revoke = try await oauth.post("/oauth/revoke", [("token", refresh), ("token_type_hint", "refresh_token")],
                                          headers: ["Content-Type": "application/x-www-form-urlencoded",
                                                    "Authorization": "Basic " + Data("web-app:\(oauth.confidentialSecret)".utf8).base64EncodedString()])
        #expect(revoke.status == 200)
        let after = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh)], basic: ("web-app", oauth.confidentialSecret))
        #expect(after.json["error"] as? String == "invalid_grant")
        let unknownToken = try await oauth.post("/oauth/revoke", [("token", "whatever"), ("client_id", "native-app")])
        #expect(unknownToken.status == 200, "RFC 7009: unknown tokens are not an error")
    }

    @Test func introspectionReportsActiveAndInactive() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        let access = try #require(tokens.json["access_token"] as? String)
        let basic = "Basic " + Data("web-app:\(oauth.confidentialSecret)".utf8).base64EncodedString()
        let headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Authorization": basic]
        let active = try await oauth.post("/oauth/introspect", [("token", access)], headers: headers)
        #expect(active.json["active"] as? Bool == true && active.json["client_id"] as? String == "web-app" && active.json["sub"] != nil)
        let refresh = try await oauth.post("/oauth/introspect", [("token", tokens.json["refresh_token"] as! String)], headers: headers)
        #expect(refresh.json["active"] as? Bool == true && refresh.json["token_type"] as? String == "refresh_token")
        #expect(try await oauth.post("/oauth/introspect", [("token", "garbage")], headers: headers).json["active"] as? Bool == false)
        _ = try await oauth.post("/oauth/revoke", [("token", access)], headers: headers)
        #expect(try await oauth.post("/oauth/introspect", [("token", access)], headers: headers).json["active"] as? Bool == false)
        let fresh = try await oauth.token([("grant_type", "client_credentials")], basic: ("web-app", oauth.confidentialSecret))
        oauth.gatehouse.clock.advance(601)
        #expect(try await oauth.post("/oauth/introspect", [("token", fresh.json["access_token"] as! String)], headers: headers)
            .json["active"] as? Bool == false, "expired")
        let publicClient = try await oauth.post("/oauth/introspect", [("token", access), ("client_id", "native-app")])
        #expect(publicClient.json["error"] as? String == "unauthorized_client")
    }

    @Test func userinfoAcceptsBearerHeaderOrFormBody() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid profile")], basic: ("web-app", oauth.confidentialSecret))
        let access = try #require(tokens.json["access_token"] as? String)
        let body = try await oauth.post("/oauth/userinfo", [("access_token", access)])
        #expect(body.status == 200 && body.json["name"] as? String == "Ada" && body.json["email"] == nil, "email needs the email scope")
        let missing = try await oauth.client.get("/oauth/userinfo")
        #expect(missing.status == 401 && missing.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        let noOpenID = try await oauth.token([("grant_type", "client_credentials")], basic: ("web-app", oauth.confidentialSecret))
        // A valid token without openid is insufficient_scope (RFC 6750 §3.1), not an invalid token.
        #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(noOpenID.json["access_token"] as! String)"]).status == 403)
    }

    @Test func discoveryJWKSAndCORS() async throws {
        let oauth = try await OAuthFixture.make()
        let discovery = try await oauth.client.get("/.well-known/openid-configuration", headers: ["Origin": "https://app.example.test"])
        let document = try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any]
        #expect(document?["issuer"] as? String == "http://127.0.0.1:8080")
        #expect(document?["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(discovery.headers["Access-Control-Allow-Origin"] == "https://app.example.test")
        let rfc8414 = try await oauth.client.get("/.well-known/oauth-authorization-server")
        #expect(rfc8414.status == 200)
        let jwks = try await oauth.client.get("/oauth/jwks", headers: ["Origin": "https://evil.example"])
        #expect(jwks.headers["Access-Control-Allow-Origin"] == nil, "unregistered origins get no CORS")
        let set = try JWKSet(json: jwks.body)
        #expect(Set(set.keys.map(\.keyType)) == ["EC", "RSA"], "an EC and an RSA key, published side by side")
        #expect(set.keys.allSatisfy { $0.privateKey == nil && $0.p == nil })
        #expect(document?["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])
        // An ID token verifies against the published JWKS.
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        // RS256 by default (OIDC Core §15.1); an ES256-only relying party would refuse it.
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: ["http://127.0.0.1:8080"], audiences: ["web-app"]))
        #expect(throws: Never.self) {
            try verifier.verify(tokens.json["id_token"] as! String, keys: VerificationKeySet(jwks: set), now: oauth.gatehouse.clock.now)
        }
        let ecOnly = JWTVerifier(allowedAlgorithms: [.es256], rules: ClaimRules(issuers: ["http://127.0.0.1:8080"], audiences: ["web-app"]))
        #expect(throws: JOSEError.self) {
            try ecOnly.verify(tokens.json["id_token"] as! String, keys: VerificationKeySet(jwks: set), now: oauth.gatehouse.clock.now)
        }
    }
}
