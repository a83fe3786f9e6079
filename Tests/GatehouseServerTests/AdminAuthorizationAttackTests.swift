import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Admin access comes only from a client-credentials token, told by a claim no user token carries — never from
/// `sub == client_id`, which a user whose id equals an admin client's id (`users.subject_source: external_id`)
/// also has (second review, item 8).
@Suite struct AdminAuthorizationAttackTests {
    struct Setup {
        let oauth: OAuthFixture
        let secret: String
    }

    /// An admin client that also allows the password grant, and a user whose id is the client's id.
    static func make() async throws -> Setup {
        let oauth = try await OAuthFixture.make()
        let (_, secret) = try await oauth.gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "backoffice", name: "Back office", kind: .confidential, grantTypes: ["client_credentials", "password"],
            scopes: ["admin"], firstParty: true, metadata: #"{"admin": true}"#))
        let hash = try await PasswordHasher(parameters: Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)).hash("imported password")
        try await oauth.gatehouse.database.users.create(User(id: "backoffice", email: "imported@example.com", passwordHash: hash,
                                                             emailVerified: true, createdAt: oauth.gatehouse.clock.now))
        return Setup(oauth: oauth, secret: try #require(secret))
    }

    static func adminStatus(_ oauth: OAuthFixture, _ token: String) async throws -> Int {
        try await oauth.client.get("/admin/v1/users", headers: ["Authorization": "Bearer \(token)"]).status
    }

    @Test func theAdminScopeIsRefusedInUserGrants() async throws {
        let setup = try await Self.make()
        let refused = try await setup.oauth.token([("grant_type", "password"), ("username", "imported@example.com"),
                                                   ("password", "imported password"), ("scope", "admin")],
                                                  basic: ("backoffice", setup.secret))
        #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_scope")
        // Without asking, a user grant does not default to it either.
        let plain = try await setup.oauth.token([("grant_type", "password"), ("username", "imported@example.com"),
                                                 ("password", "imported password")], basic: ("backoffice", setup.secret))
        if plain.status == 200 {
            let access = try #require(plain.json["access_token"] as? String)
            #expect(!(OAuthFixture.claims(access)["scope"] as? String ?? "").contains("admin"))
            #expect(OAuthFixture.claims(access)["sub"] as? String == "backoffice", "the user's sub is the client's id")
            #expect(try await Self.adminStatus(setup.oauth, access) == 403)
        }
        // The client acting for itself still gets in, and its token says so.
        let own = try await setup.oauth.token([("grant_type", "client_credentials"), ("scope", "admin")], basic: ("backoffice", setup.secret))
        let token = try #require(own.json["access_token"] as? String)
        #expect(OAuthFixture.claims(token)["gty"] as? String == "client_credentials")
        #expect(try await Self.adminStatus(setup.oauth, token) == 200)
    }

    /// A token signed by Gatehouse with `sub == client_id` and the admin scope but without the client-credentials
    /// claim — what a user's token looked like before the admin scope was refused in user grants — gets 403.
    @Test func subjectEqualToClientIDIsNotAdminAccess() async throws {
        let setup = try await Self.make()
        let services = setup.oauth.gatehouse.app.services
        let key = try await services.keys.signingKey()
        let now = Int64(setup.oauth.gatehouse.clock.now.timeIntervalSince1970)
        let forged = try JWTSigner.sign([
            "iss": .string(services.tokens.issuer.settings.issuer), "sub": .string("backoffice"), "client_id": .string("backoffice"),
            "aud": .string(services.tokens.issuer.settings.accessTokenAudience), "scope": .string("admin"),
            "iat": .integer(now), "exp": .integer(now + 600), "jti": .string(RecordID.random()), "fid": .string(RecordID.random()),
        ], with: key, type: "at+jwt")
        #expect(try await Self.adminStatus(setup.oauth, forged) == 403)
    }
}
