import CSQLite
import Foundation
@testable import GatehouseSQLite
import GatehouseStore
import Testing

/// Waiting on another process's lock (two connections of one file behave as two processes do): the busy
/// handler tries again every millisecond up to the busy timeout, where SQLite's own `sqlite3_busy_timeout`
/// would sleep in steps growing to 100 ms and miss the short gaps between another process's paced batches.
@Suite("SQLite lock waits")
struct SQLiteLockWaitTests {
    /// Holds `BEGIN IMMEDIATE` on a second connection of `path` for `hold`, on its own thread; returns once
    /// the lock is taken, and `release` waits for the commit.
    static func holdWriteLock(path: String, for hold: TimeInterval) throws -> (release: () -> Void, Void) {
        let holder = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1_000)
        try holder.execute("BEGIN IMMEDIATE")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: hold)
            try? holder.execute("COMMIT")
            holder.close()
            done.signal()
        }
        return ({ done.wait() }, ())
    }

    @Test func aWriterWaitingOnAnotherProcessTriesAgainEveryMillisecondAndGetsTheLock() throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("w.sqlite")
        let waiter = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 10_000)
        defer { waiter.close() }
        try waiter.execute("CREATE TABLE t (x INTEGER)")
        let (release, _) = try Self.holdWriteLock(path: path, for: 0.3)
        try waiter.writeTransaction { try waiter.run("INSERT INTO t VALUES (1)", []) }
        release()
        // SQLite's own schedule makes 12 tries in 328 ms; one a millisecond makes ~300 (fewer on a loaded machine).
        #expect(waiter.lockRetries >= 30)
        #expect(try waiter.queryOne("SELECT COUNT(*) FROM t", []) { $0.int(0) } == 1)
    }

    @Test func theWaitEndsAtTheBusyTimeoutWithSQLiteBusy() throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("w.sqlite")
        let waiter = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 100)
        defer { waiter.close() }
        try waiter.execute("CREATE TABLE t (x INTEGER)")
        let (release, _) = try Self.holdWriteLock(path: path, for: 2)
        let started = Date()
        var detail = ""
        do { try waiter.execute("BEGIN IMMEDIATE") } catch StoreError.unavailable(let text) { detail = text }
        let waited = Date().timeIntervalSince(started)
        release()
        #expect(detail.hasPrefix("sqlite \(SQLITE_BUSY):"))
        #expect(waited >= 0.1)
        #expect(waited < 1.5)
    }

    @Test func anInlineReadLeavesTheLockWaitInPlace() throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("w.sqlite")
        let waiter = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 10_000)
        defer { waiter.close() }
        try waiter.execute("CREATE TABLE t (x INTEGER)")
        waiter.beginInlineRead(budgetNanoseconds: 1_000_000_000)
        _ = try waiter.queryOne("SELECT COUNT(*) FROM t", []) { $0.int(0) }
        #expect(!waiter.endInlineRead())
        let (release, _) = try Self.holdWriteLock(path: path, for: 0.3)
        try waiter.writeTransaction { try waiter.run("INSERT INTO t VALUES (1)", []) }
        release()
        #expect(waiter.lockRetries >= 30)
    }
}
