import Foundation
import GatehouseStore
import Testing

/// The store side of tokens that follow the account (second review, items 5, 11 and 12): the per-user "tokens issued
/// before T are void" mark, the grants that end with one browser session, and the bcrypt cost start-up reads.
@Suite("Token standing conformance")
struct TokenStandingStoreTests {
    @Test(arguments: StoreBackends.all)
    func theVoidMarkOnlyMovesForward(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            #expect(try await db.users.tokensNotBefore(userId: "u1") == nil)
            #expect(try await db.users.voidTokens(userId: "u1", issuedBefore: TestTime.at(100.5)))
            #expect(try await db.users.tokensNotBefore(userId: "u1") == TestTime.at(100.5))
            #expect(try await db.users.voidTokens(userId: "u1", issuedBefore: TestTime.at(50)), "a late, older writer…")
            #expect(try await db.users.tokensNotBefore(userId: "u1") == TestTime.at(100.5), "…revives nothing")
            #expect(try await db.users.voidTokens(userId: "u1", issuedBefore: TestTime.at(200)))
            #expect(try await db.users.tokensNotBefore(userId: "u1") == TestTime.at(200))
            #expect(try await !db.users.voidTokens(userId: "nobody", issuedBefore: TestTime.at(1)))
            #expect(try await db.users.tokensNotBefore(userId: "nobody") == nil)
            // Read with the Bearer check, in one statement, as the composed reads answer it.
            let read = try await db.hotReads.bearerSubject(userId: "u1", revocationKeys: ["jti"])
            #expect(read.tokensNotBefore == TestTime.at(200) && read.user?.id == "u1")
            #expect(try await ComposedHotReads(database: db).bearerSubject(userId: "u1", revocationKeys: ["jti"]) == read)
            // The mark does not change the user's fields.
            #expect(try await db.users.find(id: "u1") == .fixture("u1"))
        }
    }

    @Test(arguments: StoreBackends.all)
    func sessionFamiliesAreTheSignInsFamiliesWithoutOfflineAccess(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            func token(_ seed: String, family: String, scope: String, authTime: Double, user: String = "u1") -> RefreshToken {
                var token = RefreshToken.fixture(seed, family: family, userId: user, scope: scope)
                token.authTime = TestTime.at(authTime)
                return token
            }
            try await db.refreshTokens.create(token("a", family: "online", scope: "openid email", authTime: 10.25))
            try await db.refreshTokens.create(token("b", family: "offline", scope: "openid offline_access email", authTime: 10.25))
            try await db.refreshTokens.create(token("c", family: "other-sign-in", scope: "openid", authTime: 11))
            try await db.refreshTokens.create(token("d", family: "other-user", scope: "openid", authTime: 10.25, user: "u2"))
            try await db.refreshTokens.create(token("e", family: "revoked", scope: "openid", authTime: 10.25))
            _ = try await db.refreshTokens.revokeFamily("revoked", now: TestTime.at(20))
            try await db.refreshTokens.create(token("f", family: "offline-alone", scope: "offline_access", authTime: 10.25))
            #expect(try await db.refreshTokens.sessionFamilyIds(userId: "u1", signedInAt: TestTime.at(10.25), now: TestTime.at(30))
                    == ["online"])
        }
    }

    @Test(arguments: StoreBackends.all)
    func bcryptCostInUseIsTheHighestStoredCost(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            #expect(try await db.users.bcryptCostInUse() == nil)
            try await db.users.create(User(id: "argon", email: "a@example.test", passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA",
                                           createdAt: TestTime.at(0)))
            #expect(try await db.users.bcryptCostInUse() == nil)
            try await db.users.create(User(id: "b10", email: "b10@example.test",
                                           passwordHash: "$2a$10$" + String(repeating: "a", count: 53), createdAt: TestTime.at(0)))
            try await db.users.create(User(id: "b12", email: "b12@example.test",
                                           passwordHash: "$2b$12$" + String(repeating: "a", count: 53), createdAt: TestTime.at(0)))
            #expect(try await db.users.bcryptCostInUse() == 12)
        }
    }
}
