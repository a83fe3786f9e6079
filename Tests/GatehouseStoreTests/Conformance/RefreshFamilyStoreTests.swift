import Foundation
import GatehouseStore
import Testing

/// `RefreshTokenStore.exchange` of family rows (a token naming its family and generation): a rotation moves
/// the row's generation on in place, with the rules of opaque tokens counted in generations, on every backend.
@Suite("RefreshTokenStore family rows conformance")
struct RefreshFamilyStoreTests {
    private struct Refused: Error {}

    /// What an exchange came to, for comparing outcomes of racing callers.
    private static func name<Issue>(_ outcome: RefreshExchange<Issue>) -> String {
        switch outcome {
        case .rotated: "rotated"
        case .reused: "reused"
        case .invalid: "invalid"
        case .refused: "refused"
        case .unknown: "unknown"
        }
    }

    /// Presents generation `generation` of the family row `seed`, `prepare` naming the next generation.
    private static func present(_ db: any GatehouseDatabase, _ seed: String, generation: Int64, at time: Double, grace: TimeInterval = 0,
                                family: String = "f1") async throws -> RefreshExchange<Int64> {
        try await db.refreshTokens.exchange(hash: testHash(seed), generation: generation, now: TestTime.at(time), graceWindow: grace) {
            presented, _ in (RefreshToken.familyFixture(seed, family: family, generation: generation + 1), presented.generation ?? -1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func aRotationMovesTheGenerationOnInPlace(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.familyFixture("fam"))
            guard case .rotated(0) = try await Self.present(db, "fam", generation: 0, at: 100) else {
                Issue.record("the current generation rotates, prepare seeing the stored row at generation 0"); return
            }
            var expected = RefreshToken.familyFixture("fam", generation: 1)
            expected.generationAt = TestTime.at(100)
            #expect(try await db.refreshTokens.find(hash: testHash("fam")) == expected, "one row, moved on; never marked rotated")
            guard case .rotated(1) = try await Self.present(db, "fam", generation: 1, at: 200) else {
                Issue.record("the next generation rotates in turn"); return
            }
            let stored = try await db.refreshTokens.find(hash: testHash("fam"))
            #expect(stored?.generation == 2)
            #expect(stored?.generationAt == TestTime.at(200))
            #expect(stored?.priorGenerationAt == TestTime.at(100))
            #expect(stored?.rotatedAt == nil)
            // The family's row is what every other question about the family reads.
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(200)))
            #expect(try await db.refreshTokens.familyIds(userId: "u1", clientId: "c1", now: TestTime.at(200)) == ["f1"])
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: TestTime.at(200))
                == [ActiveGrant(clientId: "c1", scope: "openid offline_access", since: TestTime.at(0))])
            #expect(try await db.refreshTokens.revokeFamily("f1", now: TestTime.at(300)) == 1)
            guard case .invalid = try await Self.present(db, "fam", generation: 2, at: 301) else {
                Issue.record("a revoked family's current generation is .invalid"); return
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func graceRetriesRefusalsAndReuse(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.familyFixture("fam"))
            _ = try await Self.present(db, "fam", generation: 0, at: 10, grace: 30)
            // The generation just replaced, inside the window: served again, nothing written.
            guard case .rotated = try await Self.present(db, "fam", generation: 0, at: 20, grace: 30) else {
                Issue.record("a retry of the replaced generation inside the grace window is served"); return
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generation == 1)
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generationAt == TestTime.at(10), "the window never slides")
            _ = try await Self.present(db, "fam", generation: 1, at: 25, grace: 30)
            // Two generations back, inside the window since it was replaced: refused, nothing revoked.
            guard case .refused = try await Self.present(db, "fam", generation: 0, at: 30, grace: 30) else {
                Issue.record("a generation whose successor is no longer current is refused inside the window"); return
            }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(30)))
            guard case .rotated = try await Self.present(db, "fam", generation: 1, at: 40, grace: 30) else {
                Issue.record("generation 1, replaced at 25, is still inside the window at 40"); return
            }
            // A generation that is not issued yet is not a token this family ever had.
            guard case .invalid = try await Self.present(db, "fam", generation: 3, at: 41, grace: 30) else {
                Issue.record("a future generation is .invalid"); return
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generation == 2)
            // Generation 0 was replaced at 10: at 45 that is a replay, and the family is revoked.
            guard case .reused(let replayed) = try await Self.present(db, "fam", generation: 0, at: 45, grace: 30) else {
                Issue.record("outside the window an old generation is .reused"); return
            }
            #expect(replayed.familyId == "f1")
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(45)) == false)
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.revokedAt == TestTime.at(45))
            guard case .invalid = try await Self.present(db, "fam", generation: 2, at: 46, grace: 30) else {
                Issue.record("after the reuse even the current generation is refused"); return
            }

            // Without a grace window the generation just replaced is a replay at once.
            try await db.refreshTokens.create(.familyFixture("strict", family: "f2"))
            _ = try await Self.present(db, "strict", generation: 0, at: 10, family: "f2")
            guard case .reused = try await Self.present(db, "strict", generation: 0, at: 10, family: "f2") else {
                Issue.record("with no grace window a replay of the replaced generation is .reused"); return
            }
            #expect(try await db.refreshTokens.isFamilyActive("f2", now: TestTime.at(10)) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func aRefusedExchangeRotatesNothing(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.familyFixture("fam"))
            await #expect(throws: Refused.self) {
                _ = try await db.refreshTokens.exchange(hash: testHash("fam"), generation: 0, now: TestTime.at(1), graceWindow: 0) {
                    _, _ -> (replacement: RefreshToken, issue: Int) in throw Refused()
                }
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam")) == .familyFixture("fam"), "still at generation 0")
            // A refused replay of a replaced generation revokes nothing either: prepare decides first.
            _ = try await Self.present(db, "fam", generation: 0, at: 10)
            await #expect(throws: Refused.self) {
                _ = try await db.refreshTokens.exchange(hash: testHash("fam"), generation: 0, now: TestTime.at(20), graceWindow: 0) {
                    _, _ -> (replacement: RefreshToken, issue: Int) in throw Refused()
                }
            }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(20)))
            // A replacement other than the row at the next generation is a caller's mistake, and writes nothing.
            await #expect(throws: StoreError.self) {
                _ = try await db.refreshTokens.exchange(hash: testHash("fam"), generation: 1, now: TestTime.at(30), graceWindow: 0) {
                    _, _ in (RefreshToken.familyFixture("fam", generation: 5), 0)
                }
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generation == 1)
            // A family row is not an opaque token, and an opaque token has no generations.
            let asked = try await db.refreshTokens.exchange(hash: testHash("fam"), now: TestTime.at(31), graceWindow: 0) {
                _, _ -> (replacement: RefreshToken, issue: Int) in throw Refused()
            }
            guard case .unknown = asked else { Issue.record("a family row presented as opaque is .unknown, got \(asked)"); return }
            try await db.refreshTokens.create(.fixture("opaque"))
            guard case .unknown = try await Self.present(db, "opaque", generation: 0, at: 32) else {
                Issue.record("an opaque row presented with a generation is .unknown"); return
            }
            guard case .invalid = try await db.refreshTokens.rotate(hash: testHash("fam"), replacement: .fixture("x"),
                                                                    now: TestTime.at(33), graceWindow: 0) else {
                Issue.record("an opaque rotation never touches a family row"); return
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generation == 1)
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.rotatedAt == nil)
            // Expired: nothing rotates.
            guard case .invalid = try await Self.present(db, "fam", generation: 1, at: 31 * 86_400) else {
                Issue.record("an expired family is .invalid"); return
            }
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.generation == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentExchangesOfOneGenerationRotateOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let store = db.refreshTokens
            for (seed, grace) in [("strict", 0.0), ("lenient", 30.0)] {
                try await store.create(.familyFixture(seed, family: seed))
                let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<10 {
                        group.addTask {
                            Self.name(try await store.exchange(hash: testHash(seed), generation: 0, now: TestTime.at(1), graceWindow: grace) {
                                _, _ in (RefreshToken.familyFixture(seed, family: seed, generation: 1), 0)
                            })
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(try await store.find(hash: testHash(seed))?.generation == 1, "\(seed): one rotation, whoever won")
                if grace == 0 {
                    #expect(outcomes.filter { $0 == "rotated" }.count == 1, "\(outcomes)")
                    // Without a window a loser is a replay (the first revokes the family, those after it find it revoked).
                    #expect(outcomes.contains("reused"), "\(outcomes)")
                    #expect(outcomes.allSatisfy { ["rotated", "reused", "invalid"].contains($0) }, "\(outcomes)")
                    #expect(try await store.isFamilyActive(seed, now: TestTime.at(1)) == false)
                } else {
                    #expect(outcomes.allSatisfy { $0 == "rotated" }, "inside the window the losers get the same successor: \(outcomes)")
                    #expect(try await store.isFamilyActive(seed, now: TestTime.at(1)))
                }
            }
        }
    }

    /// An opaque token (one row per token, as issued before family rows) moves its family to a family row on
    /// its next exchange; its rules hold across the move.
    @Test(arguments: StoreBackends.all)
    func anOpaqueTokenMovesItsFamilyToOneRow(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("opaque"))
            let upgrade = RefreshToken.familyFixture("fam", created: 10)
            func presentOpaque(at time: Double) async throws -> String {
                Self.name(try await db.refreshTokens.exchange(hash: testHash("opaque"), now: TestTime.at(time), graceWindow: 30) {
                    _, _ in (upgrade, 0)
                })
            }
            #expect(try await presentOpaque(at: 10) == "rotated")
            #expect(try await db.refreshTokens.find(hash: testHash("opaque"))?.rotatedAt == TestTime.at(10))
            #expect(try await db.refreshTokens.find(hash: testHash("fam")) == upgrade)
            #expect(try await presentOpaque(at: 15) == "rotated", "a retry inside the window gets the same family row")
            #expect(try await db.refreshTokens.find(hash: testHash("fam")) == upgrade, "nothing new stored")
            guard case .rotated = try await Self.present(db, "fam", generation: 0, at: 20, grace: 30) else {
                Issue.record("the family row rotates by generation"); return
            }
            #expect(try await presentOpaque(at: 25) == "refused", "its successor moved on: no second branch")
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: TestTime.at(25)).count == 1)
            #expect(try await presentOpaque(at: 41) == "reused")
            #expect(try await db.refreshTokens.find(hash: testHash("fam"))?.revokedAt == TestTime.at(41), "the family row is revoked too")
        }
    }

    @Test(arguments: StoreBackends.all)
    func familyRowsArePurgedWhenTheyExpire(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.familyFixture("fam"))
            _ = try await Self.present(db, "fam", generation: 0, at: 10)
            #expect(try await db.refreshTokens.purgeExpired(now: TestTime.at(29 * 86_400), limit: 100) == 0)
            #expect(try await db.refreshTokens.purgeExpired(now: TestTime.at(30 * 86_400), limit: 100) == 1)
            #expect(try await db.refreshTokens.find(hash: testHash("fam")) == nil)
        }
    }
}
