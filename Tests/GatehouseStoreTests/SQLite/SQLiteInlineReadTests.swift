import Foundation
@testable import GatehouseSQLite
import GatehouseStore
import Synchronization
import Testing

/// Reads run on the caller's thread when a reader is free (`SQLiteConnectionPool.read`); these pin
/// down the bound and the exclusivity that makes that safe.
@Suite("SQLite inline reads")
struct SQLiteInlineReadTests {
    /// Counts to `n` in SQLite's VM: milliseconds of work for a few million, past the inline budget.
    private static func countSQL(_ n: Int) -> String {
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(n)) SELECT count(*) FROM c"
    }

    private static func openMigrated(_ folder: TemporaryFolder, _ name: String) async throws -> SQLiteDatabase {
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending(name)))
        _ = try await db.migrate()
        return db
    }

    @Test func aShortReadRunsOnceOnTheCallersThread() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await Self.openMigrated(folder, "s.sqlite")
        let calls = Counter()
        let answer = try await db.pool.read { connection in
            calls.increment()
            return try connection.queryOne("SELECT 41 + 1", []) { $0.int(0) }
        }
        #expect(answer == 42)
        #expect(calls.value == 1)
        await db.close()
    }

    /// A read past the budget is interrupted, its outcome discarded — even one that swallowed the
    /// interruption — and it runs again on a reader's queue to its true answer.
    @Test func aLongReadIsAbandonedInlineAndFinishesOnAQueue() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await Self.openMigrated(folder, "l.sqlite")
        let calls = Counter()
        let n = 500_000
        let answer = try await db.pool.read { connection in
            calls.increment()
            return (try? connection.queryOne(Self.countSQL(n), []) { $0.int(0) }) ?? -1
        }
        #expect(answer == n)
        #expect(calls.value == 2)
        // The abandoned connection is usable again and holds no transaction.
        for _ in 0..<6 {
            #expect(try await db.pool.read { try $0.queryOne("SELECT 7", []) { $0.int(0) } } == 7)
        }
        await db.close()
    }

    /// Concurrent short and long reads: no reader connection is ever used by two threads at once.
    @Test func aReaderIsNeverUsedByTwoThreadsAtOnce() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await Self.openMigrated(folder, "c.sqlite")
        let active = ActiveUses()
        let overlaps = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in 0..<40 {
                        let sql = (task + index) % 20 == 0 ? Self.countSQL(100_000) : "SELECT 1"
                        _ = try await db.pool.read { connection in
                            let key = ObjectIdentifier(connection)
                            if active.enter(key) != 0 { overlaps.increment() }
                            defer { active.leave(key) }
                            return try connection.queryOne(sql, []) { $0.int(0) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlaps.value == 0)
        await db.close()
    }
}

/// A shareable counter (a local `Atomic` cannot be captured by an escaping closure).
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// How many threads are inside a read on each connection right now.
private final class ActiveUses: Sendable {
    private let uses = Mutex<[ObjectIdentifier: Int]>([:])

    /// Records an entry; returns how many were inside before it.
    func enter(_ key: ObjectIdentifier) -> Int {
        uses.withLock { map in
            defer { map[key, default: 0] += 1 }
            return map[key, default: 0]
        }
    }

    func leave(_ key: ObjectIdentifier) { uses.withLock { $0[key, default: 0] -= 1 } }
}
