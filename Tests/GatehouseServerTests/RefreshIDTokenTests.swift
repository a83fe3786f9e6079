import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import Testing

/// What a refresh of an `openid` grant answers. A new ID token by default (Keycloak's behaviour,
/// what kubectl's OIDC login needs), signed as the client registered (RS256, or ES256); none for a client
/// registered with `refresh_id_token: false` (OpenID Connect Core §12.2), which then signs one JWT per refresh.
@Suite struct RefreshIDTokenTests {
    private func register(_ oauth: OAuthFixture, _ id: String, metadata: String) async throws -> String {
        let (_, secret) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: id, name: id, kind: .confidential, redirectURIs: ["https://\(id).example/cb"],
            grantTypes: ["password", "refresh_token"], firstParty: true, metadata: metadata))
        return try #require(secret)
    }

    private func signIn(_ oauth: OAuthFixture, _ client: (String, String)) async throws -> [String: Any] {
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"),
                                            ("password", "correct horse battery"), ("scope", "openid email")], basic: client)
        #expect(tokens.status == 200)
        return tokens.json
    }

    private func refresh(_ oauth: OAuthFixture, _ token: Any?, _ client: (String, String)) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", try #require(token as? String))],
                                           basic: client)
        return (answer.status, answer.json)
    }

    @Test func byDefaultARefreshCarriesANewIDTokenOfTheSameSubject() async throws {
        let oauth = try await OAuthFixture.make()
        let client = ("web-app", oauth.confidentialSecret)
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let first = try await signIn(oauth, client)
        let before = issuer.signaturesMade
        let refreshed = try await refresh(oauth, first["refresh_token"], client)
        #expect(refreshed.status == 200)
        #expect(issuer.signaturesMade == before + 2, "an access token and an ID token")
        let original = try CompactJWS(try #require(first["id_token"] as? String))
        let renewed = try CompactJWS(try #require(refreshed.json["id_token"] as? String))
        #expect(renewed.header.algorithm == "RS256")
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(renewed.payload)) as? [String: Any])
        let originalClaims = try #require(try JSONSerialization.jsonObject(with: Data(original.payload)) as? [String: Any])
        // OIDC Core §12.2: same iss, sub and aud; auth_time of the original sign-in.
        for claim in ["iss", "sub", "aud", "auth_time"] {
            #expect(String(describing: claims[claim]) == String(describing: originalClaims[claim]), "\(claim)")
        }
        #expect(claims["at_hash"] as? String == TokenIssuer.atHash(try #require(refreshed.json["access_token"] as? String)))
    }

    @Test func aClientRegisteredWithoutRefreshIDTokensGetsNoneAndSignsOnce() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = try await register(oauth, "lean", metadata: ClientMetadata.setting(ClientMetadata.refreshIDTokenKey, to: false, in: "{}"))
        let client = ("lean", secret)
        let registered = try #require(try await oauth.gatehouse.app.services.tokens.registry.find(id: "lean"))
        #expect(registered.refreshIssuesIDToken == false)
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let first = try await signIn(oauth, client)
        #expect(first["id_token"] is String, "the sign-in itself still gets its ID token")
        let before = issuer.signaturesMade
        let refreshed = try await refresh(oauth, first["refresh_token"], client)
        #expect(refreshed.status == 200)
        #expect(refreshed.json["id_token"] == nil)
        #expect((refreshed.json["scope"] as? String)?.split(separator: " ").contains("openid") == true, "the grant keeps its openid scope")
        #expect(issuer.signaturesMade == before + 1, "only the access token is signed")
        // The access token still works for userinfo (openid scope), and the rotation chain goes on.
        let access = try #require(refreshed.json["access_token"] as? String)
        let userinfo = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"])
        #expect(userinfo.status == 200)
        #expect(try await refresh(oauth, refreshed.json["refresh_token"], client).status == 200)
        #expect(try await refresh(oauth, first["refresh_token"], client).status == 400, "reuse detection unchanged")
    }

    @Test func anES256ClientGetsAnES256IDTokenOnRefresh() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = try await register(oauth, "ec", metadata: ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey,
                                                                                      to: "ES256", in: "{}"))
        let client = ("ec", secret)
        let refreshed = try await refresh(oauth, try await signIn(oauth, client)["refresh_token"], client)
        #expect(refreshed.status == 200)
        #expect(try CompactJWS(try #require(refreshed.json["id_token"] as? String)).header.algorithm == "ES256")
    }

    @Test func registrationAndTheConfigFileCheckTheSetting() async throws {
        let oauth = try await OAuthFixture.make()
        await #expect(throws: ClientRegistry.RegistrationError.self) {
            _ = try await register(oauth, "bad", metadata: #"{"refresh_id_token": "no"}"#)
        }
        func load(_ json: String) throws -> GatehouseConfiguration {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-rit-\(UUID().uuidString).json").path
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try GatehouseConfiguration.load(environment: [:], configPath: path)
        }
        let configured = try load(#"{"clients": [{"id": "rp", "redirect_uris": ["https://rp.example/cb"], "refresh_id_token": false}]}"#)
        let registration = try #require(configured.clients.first).registration
        try await oauth.gatehouse.app.services.tokens.registry.apply(registration, secret: nil)
        #expect(try await oauth.gatehouse.app.services.tokens.registry.find(id: "rp")?.refreshIssuesIDToken == false)
        let defaulted = try load(#"{"clients": [{"id": "rp2", "redirect_uris": ["https://rp.example/cb"]}]}"#)
        try await oauth.gatehouse.app.services.tokens.registry.apply(try #require(defaulted.clients.first).registration, secret: nil)
        #expect(try await oauth.gatehouse.app.services.tokens.registry.find(id: "rp2")?.refreshIssuesIDToken == true)
        #expect {
            try load(#"{"clients": [{"id": "rp", "redirect_uris": ["https://rp.example/cb"], "refresh_id_token": "no"}]}"#)
        } throws: { error in
            (error as? ConfigurationError)?.key == "clients[0].refresh_id_token"
        }
    }
}

/// The checks `RefreshTokenGrant` runs inside the store's exchange: each refuses before
/// anything is rotated or signed, and a disabled account's family is revoked.
@Suite struct RefreshExchangeChecksTests {
    private func tokens(_ oauth: OAuthFixture) async throws -> [String: Any] {
        try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"),
                               ("password", "correct horse battery"), ("scope", "openid")],
                              basic: ("web-app", oauth.confidentialSecret)).json
    }

    @Test func anotherClientOrAWiderScopeRotatesNothing() async throws {
        let oauth = try await OAuthFixture.make()
        let refresh = try #require(try await tokens(oauth)["refresh_token"] as? String)
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let before = issuer.signaturesMade
        let other = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                          basic: ("partner", oauth.thirdPartySecret))
        #expect(other.status == 400 && other.json["error"] as? String == "invalid_grant")
        let wider = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("scope", "openid api.read")],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(wider.status == 400 && wider.json["error"] as? String == "invalid_scope")
        #expect(issuer.signaturesMade == before)
        let stored = try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))
        #expect(stored?.rotatedAt == nil && stored?.revokedAt == nil, "still current: the refusals wrote nothing")
        #expect(try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                      basic: ("web-app", oauth.confidentialSecret)).status == 200)
    }

    @Test func aDisabledAccountGetsNothingAndLosesTheFamily() async throws {
        let oauth = try await OAuthFixture.make()
        let refresh = try #require(try await tokens(oauth)["refresh_token"] as? String)
        let users = oauth.gatehouse.database.users
        let ada = try #require(try await users.find(email: "ada@example.com"))
        _ = try await users.update(id: ada.id, [.disabled(true)], at: Date())
        let issuer = oauth.gatehouse.app.services.tokens.issuer
        let before = issuer.signaturesMade
        let refused = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                            basic: ("web-app", oauth.confidentialSecret))
        #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_grant")
        #expect((refused.json["error_description"] as? String)?.contains("not available") == true)
        #expect(issuer.signaturesMade == before)
        let stored = try #require(try await oauth.gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh)))
        #expect(stored.rotatedAt == nil, "nothing rotated")
        #expect(stored.revokedAt != nil, "the family is revoked")
        // Re-enabled, the revoked family stays dead.
        _ = try await users.update(id: ada.id, [.disabled(false)], at: Date())
        #expect(try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                      basic: ("web-app", oauth.confidentialSecret)).status == 400)
    }
}
