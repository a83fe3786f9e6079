import Foundation
import GatehouseStore
import Testing

/// The account page lists a user's applications from `activeGrants`, which walks the
/// `(user_id, client_id, created_at)` index per client instead of reading every token. These check that
/// the answer is still the oldest *live* grant when many grants and dead families come first.
@Suite("RefreshTokenStore.activeGrants with many grants")
struct ActiveGrantsQueryTests {
    @Test(arguments: StoreBackends.all)
    func oldestLiveGrantAmongHundredsAndDeadFamiliesBeforeIt(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await seedGrantHistory(db, deadFamilies: 20, youngerLiveGrants: 300)
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
