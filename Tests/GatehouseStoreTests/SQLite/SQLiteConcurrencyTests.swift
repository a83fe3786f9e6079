import Foundation
import GatehouseSQLite
import GatehouseStore
import Synchronization
import Testing

/// Writers in one process share one connection; other processes are held off by busy_timeout.
/// A second `SQLiteDatabase` on the same file stands in for another process (the CLI).
@Suite("SQLite concurrency")
struct SQLiteConcurrencyTests {
    @Test func concurrentWritersFromTwoInstancesNeverFail() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("c.sqlite")
        let server = try await SQLiteDatabase.open(url: url)
        _ = try await server.migrate()
        let cli = try await SQLiteDatabase.open(url: url)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        try await server.auditLog.append(AuditEvent(
                            occurredAt: TestTime.at(Double(index)), userId: "w\(writer)", type: "test.write"))
                    }
                }
            }
            for writer in 0..<2 {
                group.addTask {
                    for index in 0..<100 {
                        try await cli.users.create(.fixture("cli\(writer)-\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await server.auditLog.count(userId: nil) == 1600)
        #expect(try await server.users.count() == 200)
        #expect(try await cli.auditLog.count(userId: "w3") == 200)
        await cli.close()
        await server.close()
    }

    @Test func singleUseHoldsAcrossInstances() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("t.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        _ = try await first.migrate()
        let second = try await SQLiteDatabase.open(url: url)
        try await first.users.create(.fixture("u1"))
        try await first.oneTimeTokens.create(OneTimeTokenStoreTests.token("x", purpose: .handoff))

        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for consumer in 0..<50 {
                let store = consumer % 2 == 0 ? first.oneTimeTokens : second.oneTimeTokens
                group.addTask { try await store.consume(hash: testHash("x"), purpose: .handoff, now: TestTime.at(1)) != nil }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)

        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for caller in 0..<30 {
                let limits = caller % 2 == 0 ? first.rateLimits : second.rateLimits
                group.addTask {
                    try await limits.hit(bucket: "login", key: "k", window: 60, limit: 4, now: TestTime.at(0)).allowed
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 4)
        await second.close()
        await first.close()
    }

    @Test func concurrentMigrationsApplyEachVersionOnce() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("m.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        let second = try await SQLiteDatabase.open(url: url)
        async let a = first.migrate()
        async let b = second.migrate()
        let reports = try await [a, b]
        #expect((reports[0].applied + reports[1].applied).sorted() == StoreSchema.versions.map(\.number))
        #expect(try await first.schemaVersion() == StoreSchema.latestVersion)
        await first.close()
        await second.close()
    }

    /// While another process holds the write lock, queued writes wait on the writer's dispatch
    /// queue — not on the cooperative pool — so reads and pings keep answering.
    @Test func readsProceedWhileWritesWaitForAnotherProcess() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("l.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        _ = try await db.migrate()

        let foreign = try RawSQLiteConnection(path: path)
        try foreign.execute("BEGIN IMMEDIATE")
        let finished = CompletionCounter()
        let writes = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        try await db.auditLog.append(AuditEvent(occurredAt: TestTime.at(Double(index)), type: "queued"))
                        finished.increment()
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(150))
        try await db.ping()
        #expect(try await db.auditLog.count(userId: nil) == 0)
        #expect(finished.value == 0)

        try foreign.execute("COMMIT")
        try await writes.value
        #expect(finished.value == 4)
        #expect(try await db.auditLog.count(userId: nil) == 4)
        await db.close()
    }

    @Test func lockHeldBeyondBusyTimeoutIsUnavailable() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("b.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path),
                                               configuration: SQLiteConfiguration(busyTimeoutMilliseconds: 100))
        _ = try await db.migrate()
        let foreign = try RawSQLiteConnection(path: path)
        try foreign.execute("BEGIN IMMEDIATE")
        await expectStoreError(.unavailable) {
            try await db.auditLog.append(AuditEvent(occurredAt: TestTime.at(0), type: "blocked"))
        }
        try foreign.execute("ROLLBACK")
        try await db.auditLog.append(AuditEvent(occurredAt: TestTime.at(0), type: "after"))
        #expect(try await db.auditLog.count(userId: nil) == 1)
        await db.close()
    }
}

/// A shareable counter (a local `Atomic` cannot be captured by an escaping closure).
private final class CompletionCounter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
