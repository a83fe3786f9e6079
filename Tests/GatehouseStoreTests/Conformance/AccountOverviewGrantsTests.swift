import Foundation
import GatehouseStore
import Testing

/// The account page's applications come from `HotReadStore.accountOverview`, which on SQLite walks the
/// clients one small statement at a time (`ActiveGrantsWalk`) instead of `ActiveGrantsQuery`.
/// On both backends its answer must be `RefreshTokenStore.activeGrants`' (the single statement), through
/// dead families, rotations, several clients, other users and a client with no live grant left.
@Suite("AccountOverview grants match activeGrants")
struct AccountOverviewGrantsTests {
    @Test(arguments: StoreBackends.all)
    func overviewGrantsMatchTheSingleStatement(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await seedGrantHistory(db, deadFamilies: 5, youngerLiveGrants: 30)
            let now = TestTime.at(1000)

            func check(_ expected: [ActiveGrant]) async throws {
                #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: now) == expected)
                #expect(try await db.hotReads.accountOverview(userId: "u1", now: now).grants == expected)
            }
            try await check([ActiveGrant(clientId: "c1", scope: "current", since: TestTime.at(60)),
                             ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(700))])
            _ = try await db.refreshTokens.revokeFamily("old", now: now)
            try await check([ActiveGrant(clientId: "c1", scope: "young", since: TestTime.at(100)),
                             ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(700))])
            // c1 (the first client) has no live grant left: the walk steps over it to c2.
            _ = try await db.refreshTokens.revokeAll(userId: "u1", clientId: "c1", now: now)
            try await check([ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(700))])
            _ = try await db.refreshTokens.revokeAll(userId: "u1", clientId: "c2", now: now)
            try await check([])
            #expect(try await db.hotReads.accountOverview(userId: "nobody", now: now).grants.isEmpty)
        }
    }
}
