import Foundation
import GatehouseStore
import Testing

/// Issue 17: the account page lists a user's applications from `activeGrants`, which walks the
/// `(user_id, client_id, created_at)` index per client instead of reading every token. These check that
/// the answer is still the oldest *live* grant when many grants and dead families come first.
@Suite("RefreshTokenStore.activeGrants with many grants")
struct ActiveGrantsQueryTests {
    @Test(arguments: StoreBackends.all)
    func oldestLiveGrantAmongHundredsAndDeadFamiliesBeforeIt(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            // Dead families first: revoked ones, and one that expired.
            for index in 0..<20 {
                try await db.refreshTokens.create(.fixture("dead\(index)", family: "dead\(index)", scope: "dead", created: Double(10 + index)))
                _ = try await db.refreshTokens.revokeFamily("dead\(index)", now: TestTime.at(40))
            }
            var expired = RefreshToken.fixture("expired", family: "expired", scope: "expired", created: 5)
            expired.expiresAt = TestTime.at(50)
            try await db.refreshTokens.create(expired)
            // The oldest live grant (created at 60), rotated since: its current token is newer and has the scope shown.
            try await db.refreshTokens.create(.fixture("old0", family: "old", scope: "first", created: 60))
            _ = try await db.refreshTokens.rotate(hash: testHash("old0"),
                                                  replacement: .fixture("old1", family: "old", scope: "current", created: 900),
                                                  now: TestTime.at(900), graceWindow: 0)
            // Hundreds of younger live grants of the same client, and one of another client.
            for index in 0..<300 {
                try await db.refreshTokens.create(.fixture("live\(index)", family: "live\(index)", scope: "young", created: Double(100 + index)))
            }
            try await db.refreshTokens.create(.fixture("other", family: "other", clientId: "c2", scope: "openid", created: 700))
            try await db.refreshTokens.create(.fixture("u2", family: "u2", userId: "u2", scope: "u2", created: 1))

            let now = TestTime.at(1000)
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: now) == [
                ActiveGrant(clientId: "c1", scope: "current", since: TestTime.at(60)),
                ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(700)),
            ])
            // Once the oldest family is gone, the next live grant is the entry.
            _ = try await db.refreshTokens.revokeFamily("old", now: now)
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: now).first
                    == ActiveGrant(clientId: "c1", scope: "young", since: TestTime.at(100)))
            // Every grant of c1 revoked: only c2 is left.
            _ = try await db.refreshTokens.revokeAll(userId: "u1", clientId: "c1", now: now)
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: now) == [
                ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(700)),
            ])
        }
    }
}
