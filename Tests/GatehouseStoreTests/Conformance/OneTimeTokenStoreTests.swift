import Foundation
import GatehouseStore
import Testing

@Suite("OneTimeTokenStore conformance")
struct OneTimeTokenStoreTests {
    static func token(_ seed: String, purpose: TokenPurpose = .passwordReset, userId: String = "u1",
                      expiresIn: Double = 600) -> OneTimeToken {
        OneTimeToken(hash: testHash(seed), purpose: purpose, userId: userId, createdAt: TestTime.at(0),
                     expiresAt: TestTime.at(expiresIn), payload: #"{"challenge":"abc"}"#)
    }

    @Test(arguments: StoreBackends.all)
    func consumeReturnsTheTokenOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let token = Self.token("t1")
            try await db.oneTimeTokens.create(token)
            let consumed = try #require(try await db.oneTimeTokens.consume(hash: token.hash, purpose: .passwordReset,
                                                                           now: TestTime.at(10)))
            var expected = token
            expected.usedAt = TestTime.at(10)
            #expect(consumed == expected)
            #expect(try await db.oneTimeTokens.consume(hash: token.hash, purpose: .passwordReset, now: TestTime.at(11)) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func consumeChecksPurposeAndExpiry(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.oneTimeTokens.create(Self.token("t1", purpose: .emailVerify, expiresIn: 120))
            let hash = testHash("t1")
            #expect(try await db.oneTimeTokens.consume(hash: hash, purpose: .passwordReset, now: TestTime.at(1)) == nil)
            #expect(try await db.oneTimeTokens.consume(hash: hash, purpose: .emailVerify, now: TestTime.at(120)) == nil)
            #expect(try await db.oneTimeTokens.consume(hash: testHash("nope"), purpose: .emailVerify, now: TestTime.at(1)) == nil)
            // Wrong purpose and late attempts did not burn it.
            #expect(try await db.oneTimeTokens.consume(hash: hash, purpose: .emailVerify, now: TestTime.at(119.999)) != nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func createFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            await expectStoreError(.notFound) { try await db.oneTimeTokens.create(Self.token("t1", userId: "ghost")) }
            try await db.users.create(.fixture("u1"))
            try await db.oneTimeTokens.create(Self.token("t1"))
            await expectStoreError(.conflict) { try await db.oneTimeTokens.create(Self.token("t1")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func fiftyConcurrentConsumersExactlyOneWins(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.oneTimeTokens.create(Self.token("race", purpose: .handoff))
            let store = db.oneTimeTokens
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await store.consume(hash: testHash("race"), purpose: .handoff, now: TestTime.at(1)) != nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func invalidateAllOfAPurpose(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            try await db.oneTimeTokens.create(Self.token("r1"))
            try await db.oneTimeTokens.create(Self.token("r2"))
            try await db.oneTimeTokens.create(Self.token("v1", purpose: .emailVerify))
            try await db.oneTimeTokens.create(Self.token("other", userId: "u2"))
            #expect(try await db.oneTimeTokens.invalidateAll(userId: "u1", purpose: .passwordReset) == 2)
            #expect(try await db.oneTimeTokens.consume(hash: testHash("r1"), purpose: .passwordReset, now: TestTime.at(1)) == nil)
            #expect(try await db.oneTimeTokens.consume(hash: testHash("v1"), purpose: .emailVerify, now: TestTime.at(1)) != nil)
            #expect(try await db.oneTimeTokens.consume(hash: testHash("other"), purpose: .passwordReset,
                                                       now: TestTime.at(1)) != nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeExpiredAndCascade(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.oneTimeTokens.create(Self.token("short1", expiresIn: 60))
            try await db.oneTimeTokens.create(Self.token("short2", expiresIn: 60))
            try await db.oneTimeTokens.create(Self.token("long", expiresIn: 6000))
            #expect(try await db.oneTimeTokens.purgeExpired(now: TestTime.at(60), limit: 1) == 1)
            #expect(try await db.oneTimeTokens.purgeExpired(now: TestTime.at(60), limit: 10) == 1)
            #expect(try await db.oneTimeTokens.purgeExpired(now: TestTime.at(60), limit: 10) == 0)
            try await db.users.delete(id: "u1")
            try await db.users.create(.fixture("u1"))
            // The cascade removed "long": the hash can be created again.
            try await db.oneTimeTokens.create(Self.token("long", expiresIn: 6000))
        }
    }
}
