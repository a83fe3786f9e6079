import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Access tokens do not outlive the account's standing (second review, item 5): introspection reads the user as
/// userinfo does, and tokens issued without a refresh token — no family to revoke — die on a password reset,
/// "end all other sessions", disable and delete through the user's "tokens issued before T are void" mark.
@Suite struct TokenStandingAttackTests {
    /// A first-party confidential client with the password grant and no refresh grant: its tokens have no family.
    static func accessOnlyClient(_ oauth: OAuthFixture) async throws -> String {
        let (_, secret) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "api-only", name: "API only", kind: .confidential, redirectURIs: [], grantTypes: ["password"], firstParty: true))
        return try #require(secret)
    }

    static func passwordToken(_ oauth: OAuthFixture, secret: String, password: String = "correct horse battery") async throws -> String {
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", password),
                                            ("scope", "openid email")], basic: ("api-only", secret))
        #expect(tokens.status == 200 && tokens.json["refresh_token"] == nil, "an access token without a refresh token")
        return try #require(tokens.json["access_token"] as? String)
    }

    static func introspect(_ oauth: OAuthFixture, _ token: String, secret: String) async throws -> Bool? {
        try await oauth.post("/oauth/introspect", [("token", token), ("client_id", "api-only"), ("client_secret", secret)])
            .json["active"] as? Bool
    }

    /// Alive before, dead after, both by userinfo and introspection.
    static func expectAlive(_ oauth: OAuthFixture, _ token: String, secret: String, _ alive: Bool, _ note: String) async throws {
        #expect(try await TokenEndpointAttackTests.userinfoStatus(oauth, token) == (alive ? 200 : 401), "userinfo \(note)")
        #expect(try await introspect(oauth, token, secret: secret) == alive, "introspection \(note)")
    }

    @Test func aPasswordResetVoidsAccessTokensWithoutARefreshToken() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = try await Self.accessOnlyClient(oauth)
        let token = try await Self.passwordToken(oauth, secret: secret)
        try await Self.expectAlive(oauth, token, secret: secret, true, "before")
        oauth.gatehouse.clock.advance(1)
        let browser = oauth.gatehouse.browser()
        _ = try await browser.submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        let reset = try #require(await oauth.gatehouse.mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        #expect(try await browser.submit(reset, to: reset, [("new_password", "a brand new password")]).status == 200)
        try await Self.expectAlive(oauth, token, secret: secret, false, "after the reset")
        // A token issued after the reset (a later second) works.
        oauth.gatehouse.clock.advance(1)
        let fresh = try await Self.passwordToken(oauth, secret: secret, password: "a brand new password")
        try await Self.expectAlive(oauth, fresh, secret: secret, true, "issued after the reset")
    }

    @Test func endingAllOtherSessionsVoidsThem() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = try await Self.accessOnlyClient(oauth)
        let token = try await Self.passwordToken(oauth, secret: secret)
        oauth.gatehouse.clock.advance(1)
        #expect(try await oauth.browser.submit("/account", to: "/account/sessions/end-others", []).status == 303)
        try await Self.expectAlive(oauth, token, secret: secret, false, "after ending all other sessions")
    }

    @Test func disablingVoidsThemForGoodAndDeletingEndsIntrospection() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = try await Self.accessOnlyClient(oauth)
        let token = try await Self.passwordToken(oauth, secret: secret)
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        let administration = oauth.gatehouse.app.services.administration
        oauth.gatehouse.clock.advance(1)
        _ = try await administration.setDisabled(id: user.id, true)
        try await Self.expectAlive(oauth, token, secret: secret, false, "while disabled")
        _ = try await administration.setDisabled(id: user.id, false)
        try await Self.expectAlive(oauth, token, secret: secret, false, "after re-enabling: the token stays void")
        // Deleted: no user, no active token (introspection used to answer active: true).
        oauth.gatehouse.clock.advance(1)
        let second = try await Self.passwordToken(oauth, secret: secret)
        try await Self.expectAlive(oauth, second, secret: secret, true, "a new token")
        try await administration.delete(id: user.id)
        try await Self.expectAlive(oauth, second, secret: secret, false, "after the delete")
    }

    /// A refresh token's introspection reads the user too.
    @Test func aDisabledUsersRefreshTokenIsInactive() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await TokenEndpointAttackTests.webTokens(oauth)
        let refresh = try #require(tokens["refresh_token"] as? String)
        #expect(try await BearerCacheRevocationTests.introspect(oauth, refresh) == true)
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        _ = try await oauth.gatehouse.database.users.update(id: user.id, [.disabled(true)], at: oauth.gatehouse.clock.now)
        #expect(try await BearerCacheRevocationTests.introspect(oauth, refresh) == false)
    }
}
