import CSQLite
import Foundation
@testable import GatehouseSQLite
import Testing

/// A multi-row statement inside a transaction keeps the original of every page it changes in a statement
/// journal. At SQLite's 64 KiB default that journal went to a temporary file for nearly every import batch
/// statement; the process configuration keeps it in memory (`statementJournalSpillBytes`, -1).
@Suite("SQLite statement journals")
struct SQLiteStatementJournalTests {
    /// Open descriptors of SQLite temporary files (`etilqs_…`, unlinked as soon as they are opened).
    static func temporaryFiles() -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").contains("etilqs_")
        }.count
    }

    /// Rewrites every row of a table of `rows` 1,000-byte rows in one statement of an open transaction, and
    /// returns how many more SQLite temporary files are open while the transaction still is.
    static func temporaryFilesDuringRewrite(rows: Int) throws -> Int {
        _ = SQLiteConnection.processConfiguration
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try SQLiteConnection(path: folder.appending("j.sqlite"), role: .writer, busyTimeoutMilliseconds: 1_000)
        defer { db.close() }
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, b BLOB NOT NULL)")
        try db.execute("""
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < \(rows))
            INSERT INTO t SELECT x, 'k' || x, zeroblob(1000) FROM n
            """)
        let before = temporaryFiles()
        try db.execute("BEGIN IMMEDIATE")
        try db.execute("INSERT INTO t VALUES (0, 'first', x'00')")  // the next statement is not the transaction's first
        // UNIQUE may abort the UPDATE half-way: SQLite journals each page it changes, to undo just the statement.
        try db.execute("UPDATE t SET b = randomblob(1000), k = k || '!'")
        let during = temporaryFiles()
        try db.execute("COMMIT")
        return during - before
    }

    @Test func aStatementJournalOfAFewMegabytesStaysInMemory() throws {
        #expect(SQLiteConnection.processConfiguration == SQLITE_OK)
        #expect(SQLiteConnection.statementJournalSpillBytes == -1)
        // ~4 MB of rows: 64 times SQLite's default spill size, which would have opened a temporary file.
        #expect(try Self.temporaryFilesDuringRewrite(rows: 4_000) == 0)
    }

    /// Why not a bound: with a spill size of 256 KiB or more, Debian's SQLite 3.40.1 answers a statement whose
    /// journal outgrows it with SQLITE_FULL (seen with 256 KiB, 1 MiB and 32 MiB). Unbounded, the same ~40 MB
    /// rewrite succeeds, and still opens no file.
    @Test func aStatementJournalOfTensOfMegabytesSucceedsInMemory() throws {
        #expect(try Self.temporaryFilesDuringRewrite(rows: 40_000) == 0)
    }
}
