import Foundation
import GatehouseStore
import Testing

@Suite("AuditLogStore conformance")
struct AuditLogStoreTests {
    static func event(_ type: String, user: String? = "u1", at seconds: Double) -> AuditEvent {
        AuditEvent(occurredAt: TestTime.at(seconds), userId: user, type: type, ip: "198.51.100.7",
                   userAgent: "Browser/1", details: #"{"method":"pwd"}"#)
    }

    @Test(arguments: StoreBackends.all)
    func appendListNewestFirstAndCount(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let log = db.auditLog
            let first = try await log.append(Self.event("login.succeeded", at: 1))
            let second = try await log.append(Self.event("password.changed", at: 2))
            try await log.append(Self.event("login.failed", user: nil, at: 3))
            try await log.append(Self.event("login.succeeded", user: "u2", at: 4))
            #expect(second > first)

            let listed = try await log.list(userId: "u1", limit: 10)
            #expect(listed.map(\.event.type) == ["password.changed", "login.succeeded"])
            #expect(listed.last == AuditRecord(sequence: first, event: Self.event("login.succeeded", at: 1)))
            #expect(try await log.list(userId: "u1", limit: 1).map(\.sequence) == [second])
            #expect(try await log.count(userId: "u1") == 2)
            #expect(try await log.count(userId: nil) == 4)
            #expect(try await log.list(userId: "nobody", limit: 10).isEmpty)
        }
    }

    /// A bulk append writes every event as given, in order (past one INSERT's rows: 300 = 128 + 128 + 32 + 8 + 4).
    @Test(arguments: StoreBackends.all)
    func appendAllKeepsEveryEventInOrder(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.auditLog.append(Self.event("before", at: 0))
            let bulk = (1...300).map { Self.event("bulk.\($0)", user: $0 == 7 ? nil : "u1", at: 1) }
            try await db.auditLog.appendAll(bulk)
            try await db.auditLog.appendAll([])
            #expect(try await db.auditLog.count(userId: nil) == 301)
            #expect(try await db.auditLog.count(userId: "u1") == 300)
            let newest = try await db.auditLog.list(userId: "u1", limit: 3)
            #expect(newest.map(\.event.type) == ["bulk.300", "bulk.299", "bulk.298"])
            #expect(newest[0].event == Self.event("bulk.300", at: 1))
            let sequences = try await db.auditLog.list(userId: "u1", limit: 1000).map(\.sequence)
            #expect(sequences == sequences.sorted(by: >) && Set(sequences).count == 300)
        }
    }

    @Test(arguments: StoreBackends.all)
    func eventsOutliveTheUser(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.auditLog.append(Self.event("account.deleted", at: 1))
            try await db.users.delete(id: "u1")
            #expect(try await db.auditLog.count(userId: "u1") == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeOlderThan(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            for second in 0..<5 { try await db.auditLog.append(Self.event("e", at: Double(second))) }
            #expect(try await db.auditLog.purge(olderThan: TestTime.at(3), limit: 2) == 2)
            #expect(try await db.auditLog.purge(olderThan: TestTime.at(3), limit: 2) == 1)
            #expect(try await db.auditLog.list(userId: "u1", limit: 10).map(\.event.occurredAt) == [TestTime.at(4), TestTime.at(3)])
        }
    }
}
