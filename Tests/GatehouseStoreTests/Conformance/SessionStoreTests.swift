import Foundation
import GatehouseStore
import Testing

@Suite("SessionStore conformance")
struct SessionStoreTests {
    @Test(arguments: StoreBackends.all)
    func createAndFindValid(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let session = Session.fixture("s1", userId: "u1")
            try await db.sessions.create(session)
            #expect(try await db.sessions.findValid(idHash: session.idHash, now: TestTime.at(10)) == session)
            #expect(try await db.sessions.findValid(idHash: testHash("other"), now: TestTime.at(10)) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func createFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            await expectStoreError(.notFound) { try await db.sessions.create(.fixture("s1", userId: "ghost")) }
            try await db.users.create(.fixture("u1"))
            try await db.sessions.create(.fixture("s1", userId: "u1"))
            await expectStoreError(.conflict) { try await db.sessions.create(.fixture("s1", userId: "u1")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func expiredSessionsAreNotFound(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let session = Session.fixture("s1", userId: "u1")  // idle until 1800, absolute until 86400
            try await db.sessions.create(session)
            #expect(try await db.sessions.findValid(idHash: session.idHash, now: TestTime.at(1799.999)) != nil)
            #expect(try await db.sessions.findValid(idHash: session.idHash, now: TestTime.at(1800)) == nil)
            #expect(try await db.sessions.list(userId: "u1", now: TestTime.at(1800)).isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func touchSlidesIdleExpiryButNotAbsolute(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let hash = testHash("s1")
            try await db.sessions.create(.fixture("s1", userId: "u1"))
            #expect(try await db.sessions.touch(idHash: hash, lastSeenAt: TestTime.at(1000), idleExpiresAt: TestTime.at(2800)))
            let touched = try #require(try await db.sessions.findValid(idHash: hash, now: TestTime.at(2000)))
            #expect(touched.lastSeenAt == TestTime.at(1000))
            #expect(touched.idleExpiresAt == TestTime.at(2800))

            // Past the absolute expiry nothing revives it.
            #expect(try await db.sessions.touch(idHash: hash, lastSeenAt: TestTime.at(86_400),
                                                 idleExpiresAt: TestTime.at(90_000)) == false)
            #expect(try await db.sessions.findValid(idHash: hash, now: TestTime.at(86_400)) == nil)
            // An idle-expired session cannot be touched back to life either.
            try await db.sessions.create(.fixture("s2", userId: "u1"))
            #expect(try await db.sessions.touch(idHash: testHash("s2"), lastSeenAt: TestTime.at(1800),
                                                 idleExpiresAt: TestTime.at(3600)) == false)
            #expect(try await db.sessions.touch(idHash: testHash("missing"), lastSeenAt: TestTime.at(1),
                                                 idleExpiresAt: TestTime.at(2)) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func deleteOneAndAllForUser(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            for seed in ["a", "b", "c"] { try await db.sessions.create(.fixture(seed, userId: "u1")) }
            try await db.sessions.create(.fixture("other", userId: "u2"))

            #expect(try await db.sessions.delete(idHash: testHash("a")))
            #expect(try await db.sessions.delete(idHash: testHash("a")) == false)
            #expect(try await db.sessions.findValid(idHash: testHash("a"), now: TestTime.at(1)) == nil)

            #expect(try await db.sessions.deleteAll(userId: "u1", keeping: testHash("c")) == 1)
            #expect(try await db.sessions.list(userId: "u1", now: TestTime.at(1)).map(\.idHash) == [testHash("c")])
            #expect(try await db.sessions.deleteAll(userId: "u1", keeping: nil) == 1)
            #expect(try await db.sessions.list(userId: "u1", now: TestTime.at(1)).isEmpty)
            #expect(try await db.sessions.list(userId: "u2", now: TestTime.at(1)).count == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func listNewestSeenFirst(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.sessions.create(.fixture("old", userId: "u1", created: 0))
            try await db.sessions.create(.fixture("new", userId: "u1", created: 100))
            try await db.sessions.touch(idHash: testHash("old"), lastSeenAt: TestTime.at(200), idleExpiresAt: TestTime.at(2000))
            let listed = try await db.sessions.list(userId: "u1", now: TestTime.at(300))
            #expect(listed.map(\.idHash) == [testHash("old"), testHash("new")])
            #expect(listed.first?.authMethods == ["pwd", "otp"])
        }
    }

    @Test(arguments: StoreBackends.all)
    func deletingUserCascadesToSessions(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.sessions.create(.fixture("s1", userId: "u1"))
            try await db.users.delete(id: "u1")
            #expect(try await db.sessions.findValid(idHash: testHash("s1"), now: TestTime.at(1)) == nil)
            // The hash is free again: the row is gone, not just hidden.
            try await db.users.create(.fixture("u1"))
            try await db.sessions.create(.fixture("s1", userId: "u1"))
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeExpiredInBatches(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            for index in 0..<5 { try await db.sessions.create(.fixture("dead\(index)", userId: "u1", created: 0)) }
            try await db.sessions.create(.fixture("alive", userId: "u1", created: 5000))
            let now = TestTime.at(5000)  // the first five are idle-expired at 1800
            #expect(try await db.sessions.purgeExpired(now: now, limit: 3) == 3)
            #expect(try await db.sessions.purgeExpired(now: now, limit: 3) == 2)
            #expect(try await db.sessions.purgeExpired(now: now, limit: 3) == 0)
            #expect(try await db.sessions.list(userId: "u1", now: now).map(\.idHash) == [testHash("alive")])
        }
    }
}
