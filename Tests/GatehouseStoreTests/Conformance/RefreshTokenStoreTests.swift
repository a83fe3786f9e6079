import Foundation
import GatehouseStore
import Testing

@Suite("RefreshTokenStore conformance")
struct RefreshTokenStoreTests {
    @Test(arguments: StoreBackends.all)
    func createFindAndFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let token = RefreshToken.fixture("rt")
            try await db.refreshTokens.create(token)
            #expect(try await db.refreshTokens.find(hash: token.hash) == token)
            #expect(try await db.refreshTokens.find(hash: testHash("missing")) == nil)
            await expectStoreError(.conflict) { try await db.refreshTokens.create(token) }
            await expectStoreError(.notFound) { try await db.refreshTokens.create(.fixture("x", userId: "ghost")) }
            await expectStoreError(.notFound) { try await db.refreshTokens.create(.fixture("y", clientId: "ghost")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func rotationHappyPath(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let first = RefreshToken.fixture("rt0")
            try await db.refreshTokens.create(first)
            let second = RefreshToken.fixture("rt1", created: 100)
            var rotated = first
            rotated.rotatedAt = TestTime.at(100)
            #expect(try await db.refreshTokens.rotate(hash: first.hash, replacement: second, now: TestTime.at(100),
                                                      graceWindow: 0) == .rotated(rotated))
            #expect(try await db.refreshTokens.find(hash: first.hash) == rotated)
            #expect(try await db.refreshTokens.find(hash: second.hash) == second)
            // The replacement rotates in turn; the family stays active throughout.
            let third = RefreshToken.fixture("rt2", created: 200)
            guard case .rotated = try await db.refreshTokens.rotate(hash: second.hash, replacement: third,
                                                                   now: TestTime.at(200), graceWindow: 0) else {
                Issue.record("the replacement must rotate")
                return
            }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(200)))
        }
    }

    /// Two processes rotating one token: the loser may have read its clock before the winner
    /// (its `now` precedes `rotated_at`). Without a grace window it must still lose.
    @Test(arguments: StoreBackends.all)
    func withoutGraceALaterLockedButEarlierClockedRotationLoses(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            guard case .rotated = try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("rt1", created: 10),
                                                                    now: TestTime.at(10), graceWindow: 0) else {
                Issue.record("the first rotation must succeed")
                return
            }
            let late = try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("rt2", created: 9.999),
                                                         now: TestTime.at(9.999), graceWindow: 0)
            guard case .reused = late else {
                Issue.record("a second rotation without a grace window must be a reuse, got \(late)")
                return
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func reuseAfterRotationRevokesTheFamily(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            try await db.refreshTokens.create(.fixture("other", family: "f2"))
            _ = try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("rt1", created: 10),
                                                  now: TestTime.at(10), graceWindow: 5)
            _ = try await db.refreshTokens.rotate(hash: testHash("rt1"), replacement: .fixture("rt2", created: 20),
                                                  now: TestTime.at(20), graceWindow: 5)

            // rt0 was rotated 50 s ago, beyond the 5 s grace window: a replay.
            guard case .reused(let replayed) = try await db.refreshTokens.rotate(
                hash: testHash("rt0"), replacement: .fixture("evil", created: 60), now: TestTime.at(60), graceWindow: 5)
            else {
                Issue.record("an old rotated token must be reported as reused")
                return
            }
            #expect(replayed.hash == testHash("rt0"))
            #expect(replayed.rotatedAt == TestTime.at(10))
            #expect(try await db.refreshTokens.find(hash: testHash("evil")) == nil)
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(60)) == false)
            for seed in ["rt0", "rt1", "rt2"] {
                #expect(try await db.refreshTokens.find(hash: testHash(seed))?.revokedAt == TestTime.at(60))
            }
            // Every descendant is now unusable, including the newest one.
            #expect(try await db.refreshTokens.rotate(hash: testHash("rt2"), replacement: .fixture("rt3", created: 61),
                                                      now: TestTime.at(61), graceWindow: 5) == .invalid)
            // Another family is untouched.
            #expect(try await db.refreshTokens.isFamilyActive("f2", now: TestTime.at(61)))
        }
    }

    @Test(arguments: StoreBackends.all)
    func graceWindowAllowsASecondRotation(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            _ = try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("a", created: 10),
                                                  now: TestTime.at(10), graceWindow: 30)
            // A retry (e.g. the first response was lost) within 30 s gets the same successor back…
            guard case .rotated(let again) = try await db.refreshTokens.rotate(
                hash: testHash("rt0"), replacement: .fixture("a", created: 39), now: TestTime.at(39.999), graceWindow: 30)
            else {
                Issue.record("a rotation within the grace window naming the stored successor must succeed")
                return
            }
            // …keeping the first rotation time, so the window does not slide.
            #expect(again.rotatedAt == TestTime.at(10))
            #expect(try await db.refreshTokens.find(hash: testHash("a"))?.createdAt == TestTime.at(10), "nothing new was stored")
            // Any other replacement inside the window is refused — never a second live branch.
            #expect(try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("b", created: 39),
                                                      now: TestTime.at(39.999), graceWindow: 30) == .refused)
            #expect(try await db.refreshTokens.find(hash: testHash("b")) == nil)
            // At exactly 30 s after the first rotation the window is over: a replay.
            guard case .reused = try await db.refreshTokens.rotate(
                hash: testHash("rt0"), replacement: .fixture("c", created: 40), now: TestTime.at(40), graceWindow: 30)
            else {
                Issue.record("a rotation after the grace window must be reported as reused")
                return
            }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(40)) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func expiredRevokedAndUnknownAreInvalid(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("live"))
            try await db.refreshTokens.create(.fixture("revoked", family: "f2"))
            #expect(try await db.refreshTokens.revokeFamily("f2", now: TestTime.at(5)) == 1)
            let end = TestTime.at(30 * 86_400)
            #expect(try await db.refreshTokens.rotate(hash: testHash("live"), replacement: .fixture("n1"), now: end,
                                                      graceWindow: 0) == .invalid)
            #expect(try await db.refreshTokens.rotate(hash: testHash("revoked"), replacement: .fixture("n2", family: "f2"),
                                                      now: TestTime.at(6), graceWindow: 0) == .invalid)
            #expect(try await db.refreshTokens.rotate(hash: testHash("nope"), replacement: .fixture("n3"),
                                                      now: TestTime.at(6), graceWindow: 0) == .invalid)
            // None of them inserted its replacement.
            for seed in ["n1", "n2", "n3"] { #expect(try await db.refreshTokens.find(hash: testHash(seed)) == nil) }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: end) == false)
            #expect(try await db.refreshTokens.isFamilyActive("f2", now: TestTime.at(6)) == false)
            #expect(try await db.refreshTokens.isFamilyActive("unknown", now: TestTime.at(6)) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func replacementMustBeOfTheSameFamily(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            await expectStoreError(.invalidArgument) {
                _ = try await db.refreshTokens.rotate(hash: testHash("rt0"), replacement: .fixture("x", family: "f9"),
                                                      now: TestTime.at(1), graceWindow: 0)
            }
            // Rolled back: the presented token is still current.
            #expect(try await db.refreshTokens.find(hash: testHash("rt0"))?.rotatedAt == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentRotationsOfOneTokenRotateOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            let store = db.refreshTokens
            let outcomes = try await withThrowingTaskGroup(of: RefreshRotation.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await store.rotate(hash: testHash("rt0"), replacement: .fixture("next\(index)", created: 1),
                                               now: TestTime.at(1), graceWindow: 0)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let rotated = outcomes.filter { if case .rotated = $0 { true } else { false } }
            #expect(rotated.count == 1)
            // The first loser replays a rotated token and revokes the family; later ones find it revoked.
            #expect(outcomes.contains { if case .reused = $0 { true } else { false } })
            #expect(outcomes.allSatisfy { if case .rotated = $0 { true } else if case .reused = $0 { true } else { $0 == .invalid } })
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(1)) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func revokeAllPerUserAndPerClient(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("a1", family: "fa", clientId: "c1"))
            try await db.refreshTokens.create(.fixture("a2", family: "fb", clientId: "c1"))
            try await db.refreshTokens.create(.fixture("b1", family: "fc", clientId: "c2"))
            try await db.refreshTokens.create(.fixture("u2", family: "fd", clientId: "c1", userId: "u2"))
            let now = TestTime.at(10)
            #expect(try await db.refreshTokens.revokeAll(userId: "u1", clientId: "c1", now: now) == 2)
            #expect(try await db.refreshTokens.isFamilyActive("fa", now: now) == false)
            #expect(try await db.refreshTokens.isFamilyActive("fc", now: now))
            #expect(try await db.refreshTokens.revokeAll(userId: "u1", clientId: nil, now: now) == 1)
            #expect(try await db.refreshTokens.revokeAll(userId: "u1", clientId: nil, now: now) == 0)
            #expect(try await db.refreshTokens.isFamilyActive("fc", now: now) == false)
            // Another user's token is untouched.
            #expect(try await db.refreshTokens.isFamilyActive("fd", now: now))
            #expect(try await db.refreshTokens.find(hash: testHash("u2"))?.revokedAt == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func activeGrantsOnePerClientOldestGrant(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.oauthClients.create(.fixture("c3"))
            // c2: a family granted at 5 and rotated at 50; its current token is newer than the grant.
            try await db.refreshTokens.create(.fixture("c2-0", family: "c2-old", clientId: "c2", scope: "openid", created: 5))
            _ = try await db.refreshTokens.rotate(hash: testHash("c2-0"),
                                                  replacement: .fixture("c2-1", family: "c2-old", clientId: "c2",
                                                                        scope: "openid", created: 50),
                                                  now: TestTime.at(50), graceWindow: 0)
            // c2: a later second grant.
            try await db.refreshTokens.create(.fixture("c2-n", family: "c2-new", clientId: "c2", scope: "email", created: 20))
            // c1: one grant.
            try await db.refreshTokens.create(.fixture("c1-0", family: "c1-f", clientId: "c1", scope: "profile", created: 30))
            // c3: revoked only; u2's token does not show up for u1.
            try await db.refreshTokens.create(.fixture("c3-0", family: "c3-f", clientId: "c3", created: 1))
            _ = try await db.refreshTokens.revokeFamily("c3-f", now: TestTime.at(2))
            try await db.refreshTokens.create(.fixture("u2-0", family: "u2-f", clientId: "c3", userId: "u2"))

            let grants = try await db.refreshTokens.activeGrants(userId: "u1", now: TestTime.at(60))
            #expect(grants == [
                ActiveGrant(clientId: "c1", scope: "profile", since: TestTime.at(30)),
                ActiveGrant(clientId: "c2", scope: "openid", since: TestTime.at(5)),
            ])
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: TestTime.at(30 * 86_400)).isEmpty)
            #expect(try await db.refreshTokens.activeGrants(userId: "nobody", now: TestTime.at(60)).isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func familyIdsOfAUserAndClient(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("a", family: "f2"))
            try await db.refreshTokens.create(.fixture("b", family: "f1"))
            try await db.refreshTokens.create(.fixture("c", family: "f1", created: 10))
            try await db.refreshTokens.create(.fixture("d", family: "f3", clientId: "c2"))
            try await db.refreshTokens.create(.fixture("e", family: "f4", userId: "u2"))
            #expect(try await db.refreshTokens.familyIds(userId: "u1", clientId: "c1", now: TestTime.at(20)) == ["f1", "f2"])
            _ = try await db.refreshTokens.revokeFamily("f2", now: TestTime.at(20))
            #expect(try await db.refreshTokens.familyIds(userId: "u1", clientId: "c1", now: TestTime.at(30)) == ["f1"])
            #expect(try await db.refreshTokens.familyIds(userId: "u1", clientId: "c1", now: TestTime.at(31 * 86_400)).isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeExpiredInBatches(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            for index in 0..<3 { try await db.refreshTokens.create(.fixture("old\(index)", family: "old")) }
            var fresh = RefreshToken.fixture("fresh", family: "fresh")
            fresh.expiresAt = TestTime.at(60 * 86_400)
            try await db.refreshTokens.create(fresh)
            let now = TestTime.at(30 * 86_400)
            #expect(try await db.refreshTokens.purgeExpired(now: now, limit: 2) == 2)
            #expect(try await db.refreshTokens.purgeExpired(now: now, limit: 2) == 1)
            #expect(try await db.refreshTokens.purgeExpired(now: now, limit: 2) == 0)
            #expect(try await db.refreshTokens.find(hash: testHash("old0")) == nil)
            #expect(try await db.refreshTokens.find(hash: fresh.hash) == fresh)
        }
    }
}
