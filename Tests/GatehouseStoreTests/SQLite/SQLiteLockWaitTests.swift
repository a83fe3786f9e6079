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
    /// A writer connection of a fresh database with a table `t`, waiting up to `busyTimeout` ms for locks;
    /// the database is removed with it.
    final class Waiter {
        let folder = TemporaryFolder.make()
        let path: String
        let connection: SQLiteConnection

        init(busyTimeout: Int32) throws {
            path = folder.appending("w.sqlite")
            connection = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: busyTimeout)
            try connection.execute("CREATE TABLE t (x INTEGER)")
        }

        deinit {
            connection.close()
            folder.remove()
        }
    }

    /// Holds `BEGIN IMMEDIATE` on a second connection of `path` for `hold`, on its own thread; returns once the
    /// lock is taken, with a function that waits for the commit.
    static func holdWriteLock(path: String, for hold: TimeInterval) throws -> () -> Void {
        let holder = try SQLiteConnection(path: path, role: .writer, busyTimeoutMilliseconds: 1_000)
        try holder.execute("BEGIN IMMEDIATE")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: hold)
            try? holder.execute("COMMIT")
            holder.close()
            done.signal()
        }
        return { done.wait() }
    }

    /// Writes once while another connection holds the lock for 300 ms; returns how often the wait retried.
    static func retriesDuringAHold(_ waiter: SQLiteConnection, _ path: String) throws -> Int {
        let release = try holdWriteLock(path: path, for: 0.3)
        let before = waiter.lockRetries
        try waiter.writeTransaction { try waiter.run("INSERT INTO t VALUES (1)", []) }
        release()
        return waiter.lockRetries - before
    }

    @Test func aWriterWaitingOnAnotherProcessTriesAgainEveryMillisecondAndGetsTheLock() throws {
        let waiter = try Waiter(busyTimeout: 10_000)
        // SQLite's own schedule makes 12 tries in 328 ms; one a millisecond makes ~300 (fewer on a loaded machine).
        #expect(try Self.retriesDuringAHold(waiter.connection, waiter.path) >= 30)
        #expect(try waiter.connection.queryOne("SELECT COUNT(*) FROM t", []) { $0.int(0) } == 1)
    }

    @Test func theWaitEndsAtTheBusyTimeoutWithSQLiteBusy() throws {
        let waiter = try Waiter(busyTimeout: 100)
        let release = try Self.holdWriteLock(path: waiter.path, for: 2)
        let started = Date()
        var detail = ""
        do { try waiter.connection.execute("BEGIN IMMEDIATE") } catch StoreError.unavailable(let text) { detail = text }
        let waited = Date().timeIntervalSince(started)
        release()
        #expect(detail.hasPrefix("sqlite \(SQLITE_BUSY):"))
        #expect(waited >= 0.1)
        #expect(waited < 1.5)
    }

    @Test func anInlineReadLeavesTheLockWaitInPlace() throws {
        let waiter = try Waiter(busyTimeout: 10_000)
        waiter.connection.beginInlineRead(budgetNanoseconds: 1_000_000_000)
        _ = try waiter.connection.queryOne("SELECT COUNT(*) FROM t", []) { $0.int(0) }
        #expect(!waiter.connection.endInlineRead())
        #expect(try Self.retriesDuringAHold(waiter.connection, waiter.path) >= 30)
    }
}
