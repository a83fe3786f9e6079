import Foundation
import GatehouseStore
import Synchronization
import Testing

/// `RefreshTokenStore.exchange`: the refresh grant's read, check and rotation in one go,
/// with exactly `rotate`'s rules, on both backends.
@Suite("RefreshTokenStore.exchange conformance")
struct RefreshExchangeStoreTests {
    private struct Refused: Error {}

    /// An exchange whose `prepare` accepts the token and names its family.
    private static func exchange(_ db: any GatehouseDatabase, _ seed: String, replacement: RefreshToken, at time: Double,
                                 grace: TimeInterval = 0) async throws -> RefreshExchange<String> {
        try await db.refreshTokens.exchange(hash: testHash(seed), now: TestTime.at(time), graceWindow: grace) { presented, _ in
            (replacement, "issued \(presented.familyId)")
        }
    }

    @Test(arguments: StoreBackends.all)
    func rotatesAndShowsTheTokenWithItsUser(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let first = RefreshToken.fixture("rt0")
            try await db.refreshTokens.create(first)
            let seen = SeenByPrepare()
            let outcome = try await db.refreshTokens.exchange(hash: first.hash, now: TestTime.at(100), graceWindow: 0) {
                presented, user in
                seen.record(presented, user)
                return (RefreshToken.fixture("rt1", created: 100), 42)
            }
            guard case .rotated(42) = outcome else {
                Issue.record("a current token must rotate and hand back prepare's value, got \(outcome)")
                return
            }
            #expect(seen.token == first, "prepare sees the stored row before the rotation")
            #expect(seen.user?.id == "u1")
            #expect(seen.user == (try await db.users.find(id: "u1")))
            #expect(try await db.refreshTokens.find(hash: first.hash)?.rotatedAt == TestTime.at(100))
            #expect(try await db.refreshTokens.find(hash: testHash("rt1")) == .fixture("rt1", created: 100))
            // The successor rotates in turn.
            guard case .rotated = try await Self.exchange(db, "rt1", replacement: .fixture("rt2", created: 200), at: 200) else {
                Issue.record("the successor must rotate")
                return
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func aThrowingPrepareWritesNothing(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            await #expect(throws: Refused.self) {
                _ = try await db.refreshTokens.exchange(hash: testHash("rt0"), now: TestTime.at(1), graceWindow: 0) {
                    _, _ -> (replacement: RefreshToken, issue: Int) in throw Refused()
                }
            }
            #expect(try await db.refreshTokens.find(hash: testHash("rt0"))?.rotatedAt == nil, "still current")
            // Also for a replayed token: prepare decides first, so a refused replay revokes nothing.
            _ = try await Self.exchange(db, "rt0", replacement: .fixture("rt1", created: 10), at: 10)
            await #expect(throws: Refused.self) {
                _ = try await db.refreshTokens.exchange(hash: testHash("rt0"), now: TestTime.at(20), graceWindow: 0) {
                    _, _ -> (replacement: RefreshToken, issue: Int) in throw Refused()
                }
            }
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(20)))
            #expect(try await db.refreshTokens.find(hash: testHash("rt1"))?.revokedAt == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func unknownInvalidReusedAndRefused(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let asked = SeenByPrepare()
            let unknown = try await db.refreshTokens.exchange(hash: testHash("nope"), now: TestTime.at(1), graceWindow: 0) {
                presented, user in
                asked.record(presented, user)
                return (RefreshToken.fixture("n0"), 0)
            }
            guard case .unknown = unknown else { Issue.record("an unknown hash is .unknown, got \(unknown)"); return }
            #expect(asked.token == nil, "prepare is not asked about an unknown token")

            try await db.refreshTokens.create(.fixture("revoked", family: "f2"))
            _ = try await db.refreshTokens.revokeFamily("f2", now: TestTime.at(5))
            guard case .invalid = try await Self.exchange(db, "revoked", replacement: .fixture("n2", family: "f2"), at: 6) else {
                Issue.record("a revoked token is .invalid"); return
            }
            try await db.refreshTokens.create(.fixture("old"))
            guard case .invalid = try await Self.exchange(db, "old", replacement: .fixture("n1"), at: 30 * 86_400) else {
                Issue.record("an expired token is .invalid"); return
            }
            for seed in ["n1", "n2"] { #expect(try await db.refreshTokens.find(hash: testHash(seed)) == nil) }

            // Grace window: the stored successor again is served, another is refused, after the window a replay.
            try await db.refreshTokens.create(.fixture("g0", family: "f3"))
            _ = try await Self.exchange(db, "g0", replacement: .fixture("g1", family: "f3", created: 10), at: 10, grace: 30)
            guard case .rotated = try await Self.exchange(db, "g0", replacement: .fixture("g1", family: "f3", created: 20),
                                                          at: 20, grace: 30) else {
                Issue.record("a retry in the grace window naming the stored successor rotates"); return
            }
            #expect(try await db.refreshTokens.find(hash: testHash("g1"))?.createdAt == TestTime.at(10), "nothing new stored")
            guard case .refused = try await Self.exchange(db, "g0", replacement: .fixture("g2", family: "f3", created: 20),
                                                          at: 20, grace: 30) else {
                Issue.record("another replacement in the grace window is refused"); return
            }
            guard case .reused(let replayed) = try await Self.exchange(db, "g0", replacement: .fixture("g3", family: "f3", created: 41),
                                                                       at: 41, grace: 30) else {
                Issue.record("after the grace window a replay is .reused"); return
            }
            #expect(replayed.familyId == "f3")
            #expect(try await db.refreshTokens.isFamilyActive("f3", now: TestTime.at(41)) == false)
            #expect(try await db.refreshTokens.find(hash: testHash("g1"))?.revokedAt == TestTime.at(41))
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentExchangesOfOneTokenRotateOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.refreshTokens.create(.fixture("rt0"))
            let store = db.refreshTokens
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let outcome = try await store.exchange(hash: testHash("rt0"), now: TestTime.at(1), graceWindow: 0) { _, _ in
                            (RefreshToken.fixture("next\(index)", created: 1), index)
                        }
                        switch outcome {
                        case .rotated: return "rotated"
                        case .reused: return "reused"
                        case .invalid: return "invalid"
                        case .refused: return "refused"
                        case .unknown: return "unknown"
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "rotated" }.count == 1)
            #expect(outcomes.contains("reused"))
            #expect(outcomes.allSatisfy { ["rotated", "reused", "invalid"].contains($0) })
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(1)) == false)
        }
    }
}

/// What a `prepare` closure was shown (closures run on database threads).
private final class SeenByPrepare: Sendable {
    private let seen = Mutex<(RefreshToken?, User?)>((nil, nil))
    func record(_ token: RefreshToken, _ user: User?) { seen.withLock { $0 = (token, user) } }
    var token: RefreshToken? { seen.withLock { $0.0 } }
    var user: User? { seen.withLock { $0.1 } }
}
