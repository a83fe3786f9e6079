import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

/// Verified signatures are cached per process, revocation is not. A token used (and so cached)
/// just before its revocation is refused on the very next call, by userinfo and by introspection; the same
/// across two processes on PostgreSQL is e2e/multiprocess/test_bearer_revocation.py.
@Suite struct BearerCacheRevocationTests {
    static func introspect(_ oauth: OAuthFixture, _ token: String) async throws -> Bool? {
        try await oauth.post("/oauth/introspect", [("token", token), ("client_id", "web-app"),
                                                   ("client_secret", oauth.confidentialSecret)]).json["active"] as? Bool
    }

    static func warm(_ oauth: OAuthFixture, _ access: String) async throws {
        for _ in 0..<3 { #expect(try await TokenEndpointAttackTests.userinfoStatus(oauth, access) == 200) }
        #expect(try await Self.introspect(oauth, access) == true)
    }

    @Test func revokedAccessTokenIsRefusedOnTheNextCallThoughItsSignatureIsCached() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await TokenEndpointAttackTests.webTokens(oauth)
        let access = try #require(tokens["access_token"] as? String)
        try await Self.warm(oauth, access)
        let revoked = try await oauth.post("/oauth/revoke", [("token", access), ("client_id", "web-app"),
                                                             ("client_secret", oauth.confidentialSecret)])
        #expect(revoked.status == 200)
        let refused = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"])
        #expect(refused.status == 401)
        #expect(refused.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
        #expect(try await Self.introspect(oauth, access) == false)
    }

    @Test func familyRevokedThroughItsRefreshTokenEndsTheCachedAccessToken() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await TokenEndpointAttackTests.webTokens(oauth)
        let access = try #require(tokens["access_token"] as? String), refresh = try #require(tokens["refresh_token"] as? String)
        try await Self.warm(oauth, access)
        let revoked = try await oauth.post("/oauth/revoke", [("token", refresh), ("token_type_hint", "refresh_token"),
                                                             ("client_id", "web-app"), ("client_secret", oauth.confidentialSecret)])
        #expect(revoked.status == 200)
        #expect(try await TokenEndpointAttackTests.userinfoStatus(oauth, access) == 401)
        #expect(try await Self.introspect(oauth, access) == false)
    }

    /// The Bearer header is parsed from bytes now: the scheme is case-insensitive, spaces and tabs around
    /// the token are dropped, anything else is `invalid_token`.
    @Test func bearerHeaderParsing() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await TokenEndpointAttackTests.webTokens(oauth)
        let access = try #require(tokens["access_token"] as? String)
        for header in ["Bearer \(access)", "bearer \(access)", "BEARER  \(access)\t", "Bearer \t\(access) "] {
            #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": header]).status == 200, "\(header.prefix(12))")
        }
        for header in ["Bearer", "Bearer ", "Bearer    ", "Bearer\t\(access)", "Basic \(access)", "Bearerx \(access)", "Bear \(access)"] {
            let response = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": header])
            #expect(response.status == 401, "\(header.prefix(12))")
        }
    }
}
