import Foundation
import GatehouseStore
import Testing

extension OAuthClient {
    /// A confidential first-party client with every list field populated.
    static func fixture(_ id: String, created: Double = 0) -> OAuthClient {
        OAuthClient(id: id, name: "Client \(id)", kind: .confidential, secretHash: String(repeating: "ab", count: 32),
                    redirectURIs: ["https://\(id).example.test/callback", "com.example.\(id):/oauth"],
                    postLogoutRedirectURIs: ["https://\(id).example.test/"],
                    grantTypes: ["authorization_code", "refresh_token"], scopes: ["profile", "email", "offline_access"],
                    firstParty: true, allowLocalhost: false, webOrigins: ["https://\(id).example.test"],
                    metadata: #"{"bundle_ids":["com.example.app"]}"#, createdAt: TestTime.at(created))
    }
}

extension AuthorizationCode {
    /// A code of `userId` for `clientId`, created at 0 and expiring after `expiresIn` seconds.
    static func fixture(_ seed: String, clientId: String = "c1", userId: String = "u1",
                        expiresIn: Double = 60) -> AuthorizationCode {
        AuthorizationCode(hash: testHash(seed), clientId: clientId, userId: userId,
                          redirectURI: "https://\(clientId).example.test/callback", scope: "openid profile",
                          nonce: "n-\(seed)", codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                          authTime: TestTime.at(-5), authMethods: ["pwd", "otp"], createdAt: TestTime.at(0),
                          expiresAt: TestTime.at(expiresIn))
    }
}

extension RefreshToken {
    /// A token of family `family`, created at `created`; the family ends at 30 days.
    static func fixture(_ seed: String, family: String = "f1", clientId: String = "c1", userId: String = "u1",
                        scope: String = "openid offline_access", created: Double = 0) -> RefreshToken {
        RefreshToken(hash: testHash(seed), familyId: family, clientId: clientId, userId: userId, scope: scope,
                     authTime: TestTime.at(-5), authMethods: ["pwd"], createdAt: TestTime.at(created),
                     expiresAt: TestTime.at(30 * 86_400))
    }
}

extension RefreshToken {
    /// A family row of family `family` at `generation`, never rotated before (no generation times).
    static func familyFixture(_ seed: String, family: String = "f1", generation: Int64 = 0, created: Double = 0) -> RefreshToken {
        var token = RefreshToken.fixture(seed, family: family, created: created)
        token.generation = generation
        return token
    }
}

/// Creates users `u1` and `u2` and clients `c1` and `c2`.
func createOAuthParties(_ db: any GatehouseDatabase) async throws {
    try await db.users.create(.fixture("u1"))
    try await db.users.create(.fixture("u2"))
    try await db.oauthClients.create(.fixture("c1"))
    try await db.oauthClients.create(.fixture("c2"))
}

extension StoreError: CustomTestStringConvertible {
    /// Test failures show the backend's detail too (never shown to clients, but what a CI log needs).
    public var testDescription: String { "\(description) [\(detail)]" }
}

/// A grant history for user u1 (after `createOAuthParties`), the shape both grant-listing suites check:
/// revoked families and an expired one first; the oldest live grant of c1 (created at 60), rotated at 900 so its
/// current token carries scope "current"; `youngerLiveGrants` live families of c1 (scope "young", from 100); one
/// live grant of c2 (scope "openid", at 700); and one grant of user u2.
func seedGrantHistory(_ db: any GatehouseDatabase, deadFamilies: Int, youngerLiveGrants: Int) async throws {
    try await createOAuthParties(db)
    for index in 0..<deadFamilies {
        try await db.refreshTokens.create(.fixture("dead\(index)", family: "dead\(index)", scope: "dead", created: Double(10 + index)))
        _ = try await db.refreshTokens.revokeFamily("dead\(index)", now: TestTime.at(40))
    }
    var expired = RefreshToken.fixture("expired", family: "expired", scope: "expired", created: 5)
    expired.expiresAt = TestTime.at(50)
    try await db.refreshTokens.create(expired)
    try await db.refreshTokens.create(.fixture("old0", family: "old", scope: "first", created: 60))
    _ = try await db.refreshTokens.rotate(hash: testHash("old0"),
                                          replacement: .fixture("old1", family: "old", scope: "current", created: 900),
                                          now: TestTime.at(900), graceWindow: 0)
    for index in 0..<youngerLiveGrants {
        try await db.refreshTokens.create(.fixture("live\(index)", family: "live\(index)", scope: "young", created: Double(100 + index)))
    }
    try await db.refreshTokens.create(.fixture("other", family: "other", clientId: "c2", scope: "openid", created: 700))
    try await db.refreshTokens.create(.fixture("u2", family: "u2", userId: "u2", scope: "u2", created: 1))
}
