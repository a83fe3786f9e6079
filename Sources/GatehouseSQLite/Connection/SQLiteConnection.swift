import CSQLite
import Foundation
import GatehouseSQLStore
import GatehouseStore

/// One SQLite connection with its prepared-statement cache.
///
/// Not thread-safe by design (opened with `SQLITE_OPEN_NOMUTEX`): each connection is owned by
/// exactly one serial `SQLiteConnectionQueue`, which is the only code that touches it.
final class SQLiteConnection: SQLConnection, @unchecked Sendable {  // confined to its owning serial queue
    /// How a connection is used; readers refuse writes so a bug cannot bypass the writer. The
    /// checkpointer only copies WAL frames back into the database file, off the writer's path.
    enum Role {
        case writer, reader, checkpointer

        /// The page cache's limit (`PRAGMA cache_size`, KiB; SQLite's default is 2,000). An import batch dirties thousands of index pages across `users`, its four indexes and the trigram table: in
        /// 2 MB the writer spills them to the WAL mid-transaction (the import fell to 3,100 rows/s at a million
        /// users with it; not yet measured with this cache). A reader's cache keeps the upper levels of the large indexes. Memory is taken only as pages
        /// are read, so a small database never reaches these limits.
        var cacheKibibytes: Int {
            switch self {
            case .writer: 65_536
            case .reader: 16_384
            case .checkpointer: 2_000
            }
        }
    }

    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Pages in the WAL after the last commit, as SQLite's WAL hook reports them (writer only; the
    /// hook runs inside COMMIT on this connection's queue). Installing the hook turns SQLite's own
    /// auto-checkpoint off, so no commit ever pays for a checkpoint: the writer hands it to the
    /// checkpointer connection instead (`SQLiteWriter`).
    private(set) var walPages: Int32 = 0
    /// The busy timeout given at open: how long `waitForLock` tries again (restored after an inline read).
    private let busyTimeoutMilliseconds: Int32
    /// When the current wait for another process's lock began (monotonic ns), and how many retries waits have made.
    private var lockWaitStarted: UInt64 = 0
    private(set) var lockRetries = 0
    /// While an inline read runs: the monotonic time (ns) past which it is abandoned, and whether it was.
    private var inlineDeadline: UInt64 = 0
    private var inlineAbandoned = false

    /// The process-wide SQLite settings, applied once before the first open: memory statistics off, so
    /// allocations on different reader threads share no lock (docs/hot-paths.md); statement journals kept in
    /// memory (``statementJournalSpillBytes``). Its value is the first failing `sqlite3_config` result
    /// code, or `SQLITE_OK`, kept for tests.
    static let processConfiguration: Int32 = {
        let memoryStatistics = gh_sqlite3_config_memstatus_off()
        let statementJournal = gh_sqlite3_config_statement_journal_spill(statementJournalSpillBytes)
        return memoryStatistics != SQLITE_OK ? memoryStatistics : statementJournal
    }()

    /// A multi-row statement inside a transaction (an import batch's INSERT, a trigger's writes) keeps the
    /// original of every page it changes in a statement journal, to undo just that statement. At SQLite's
    /// 64 KiB default nearly every such statement wrote its journal to a temporary file: at 100,000 accounts
    /// 40% of an import's write calls. -1 keeps it in memory always, as `temp_store=MEMORY` would (without
    /// moving sorts there too). Not a larger bound: Debian's SQLite 3.40.1 fails the move to disk with
    /// `SQLITE_FULL` once the spill size is 256 KiB or more (SQLiteStatementJournalTests). Gatehouse's large
    /// changes run in batches (imports, purges, backfills), so a journal holds one batch's pages; only an old
    /// one-transaction migration (23's backfill) on a large database makes one as big as the table it rewrites.
    static let statementJournalSpillBytes: Int32 = -1

    /// Opens and configures a connection. Blocking: call only from a connection queue.
    init(path: String, role: Role, busyTimeoutMilliseconds: Int32, synchronous: SQLiteSynchronous = .full,
         journalSizeLimitBytes: Int = 16 << 20) throws {
        _ = Self.processConfiguration
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &opened, flags, nil)
        guard rc == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw StoreError.unavailable(detail: "sqlite open \(rc): \(message) [\(path)]")
        }
        handle = opened
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        sqlite3_extended_result_codes(opened, 1)
        // Waits on locks held by other processes (e.g. the CLI migrating while the server runs).
        installLockWait(opened)
        do {
            if role == .writer && path != ":memory:" {
                let mode = try queryOne("PRAGMA journal_mode=WAL", []) { $0.text(0) }
                guard mode?.lowercased() == "wal" else {
                    throw StoreError.unavailable(detail: "sqlite: journal_mode is \(mode ?? "?"), WAL required [\(path)]")
                }
            }
            // Durability is decided by the writer's setting (docs/sqlite-durability.md); the other
            // connections use the same so a checkpoint syncs as the writer expects.
            try execute("PRAGMA synchronous=\(synchronous.pragmaValue)")
            try execute("PRAGMA foreign_keys=ON")
            try execute("PRAGMA cache_size=-\(role.cacheKibibytes)")
            switch role {
            case .reader:
                try execute("PRAGMA query_only=ON")
            case .writer where path != ":memory:":
                // After a checkpoint resets the WAL, the file is truncated back to this size.
                try execute("PRAGMA journal_size_limit=\(journalSizeLimitBytes)")
                installWALHook(opened)
            case .writer, .checkpointer:
                break
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    var isClosed: Bool { handle == nil }

    /// Bytes the page cache holds now (`SQLITE_DBSTATUS_CACHE_USED`).
    var cachedBytes: Int {
        var current: Int32 = 0, highest: Int32 = 0
        guard let handle, sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0) == SQLITE_OK else { return 0 }
        return Int(current)
    }

    /// Hands the page cache's unused pages back to the allocator (`sqlite3_db_release_memory`).
    func releaseCachedPages() {
        if let handle { sqlite3_db_release_memory(handle) }
    }

    /// Finalizes cached statements and closes the handle. Idempotent.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements without parameters (DDL, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws {
        let db = try openHandle()
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw StoreError.sqlite(code: sqlite3_extended_errcode(db), message: text, context: sql)
        }
    }

    /// Runs a statement that returns no rows of interest; returns the number of changed rows.
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLBindable]) throws -> Int {
        try withStatement(sql, parameters) { statement in
            while try step(statement, sql) {}
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs a query and maps every row.
    func query<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (SQLiteRow) throws -> T) throws -> [T] {
        try withStatement(sql, parameters) { statement in
            var rows: [T] = []
            while try step(statement, sql) { rows.append(try map(SQLiteRow(statement: statement))) }
            return rows
        }
    }

    /// Runs a query and maps its first row, or returns nil. Steps to the end so `RETURNING`
    /// writes complete and the statement releases its snapshot.
    func queryOne<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (SQLiteRow) throws -> T) throws -> T? {
        try withStatement(sql, parameters) { statement in
            var first: T?
            while try step(statement, sql) {
                if first == nil { first = try map(SQLiteRow(statement: statement)) }
            }
            return first
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    ///
    /// IMMEDIATE takes the write lock up front, so a transaction never starts as a reader and
    /// fails to upgrade later (the deadlock that busy_timeout cannot resolve).
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE", [])
        do {
            let result = try body()
            try run("COMMIT", [])
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK", []) }
            throw error
        }
    }

    /// Whether a transaction is open (false after SQLite rolled one back on its own, e.g. on an I/O error).
    var inTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Copies what it can of the WAL back into the database file without blocking the writer or
    /// readers (`SQLITE_CHECKPOINT_PASSIVE`); returns whether every frame is now in the database file
    /// (then the next write restarts the WAL from its beginning), or nil when another connection was
    /// checkpointing.
    @discardableResult
    func checkpointPassive() throws -> Bool? {
        let db = try openHandle()
        var log: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        if rc & 0xff == SQLITE_BUSY { return nil }
        guard rc == SQLITE_OK else {
            throw StoreError.sqlite(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)),
                                    context: "wal_checkpoint(PASSIVE)")
        }
        return log == copied
    }

    private func installWALHook(_ db: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(db, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().walPages = pages
            return SQLITE_OK
        }, context)
    }

    // MARK: - Waiting on other processes' locks

    /// How often a wait for another process's lock tries again.
    static let lockRetryMicroseconds: UInt32 = 1_000

    /// A busy handler that tries again every ``lockRetryMicroseconds`` until the busy timeout. SQLite's own
    /// `sqlite3_busy_timeout` sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and then 100 ms between tries, so
    /// a writer that meets a lock held by another process's paced batches (a migration's backfill, a few ms
    /// each with a rest as long between them) sleeps through the rests and waits out the whole job.
    private func installLockWait(_ db: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_busy_handler(db, { context, attempt in
            guard let context else { return 0 }
            return Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().waitForLock(attempt: attempt) ? 1 : 0
        }, context)
    }

    /// One try of the busy handler: false (give up, SQLITE_BUSY) once the wait has lasted the busy timeout.
    private func waitForLock(attempt: Int32) -> Bool {
        let now = Self.monotonicNanoseconds()
        if attempt == 0 { lockWaitStarted = now }
        guard now &- lockWaitStarted < UInt64(max(busyTimeoutMilliseconds, 0)) * 1_000_000 else { return false }
        lockRetries += 1
        usleep(Self.lockRetryMicroseconds)
        return true
    }

    // MARK: - Inline reads (a bound on the caller's thread)

    /// How many virtual-machine steps SQLite runs between two checks of the inline deadline
    /// (each check reads the monotonic clock; a step is tens of nanoseconds).
    private static let inlineCheckSteps: Int32 = 1000

    /// Arms the bound of a read run on the calling task's thread (`SQLiteConnectionQueue.runInline`):
    /// past `budgetNanoseconds`, or at the first lock of another process (where the busy timeout would
    /// sleep), SQLite interrupts the statement and `endInlineRead` reports the read abandoned, so the
    /// caller runs it again on the connection's queue, where it may take as long as it needs.
    func beginInlineRead(budgetNanoseconds: UInt64) {
        guard let handle else { return }
        inlineDeadline = Self.monotonicNanoseconds() &+ budgetNanoseconds
        inlineAbandoned = false
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_progress_handler(handle, Self.inlineCheckSteps, { context in
            guard let context else { return 0 }
            let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
            guard SQLiteConnection.monotonicNanoseconds() > connection.inlineDeadline else { return 0 }
            connection.inlineAbandoned = true
            return 1
        }, context)
        sqlite3_busy_handler(handle, { context, _ in
            if let context { Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue().inlineAbandoned = true }
            return 0  // do not wait on the caller's thread: give up, the queue will wait
        }, context)
    }

    /// Disarms the inline bound (restoring the busy timeout); returns whether the read was abandoned,
    /// in which case its outcome, whatever it is, must be discarded. An abandoned read is left with no
    /// open transaction.
    func endInlineRead() -> Bool {
        guard let handle else { return false }
        sqlite3_progress_handler(handle, 0, nil, nil)
        installLockWait(handle)
        let abandoned = inlineAbandoned
        inlineAbandoned = false
        if abandoned && sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK", []) }
        return abandoned
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    // MARK: - Statements

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw StoreError.unavailable(detail: "sqlite connection closed") }
        return handle
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        let db = try openHandle()
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw StoreError.sqlite(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)),
                                    context: "prepare \(sql)")
        }
        statements[sql] = statement
        return statement
    }

    private func withStatement<T>(_ sql: String, _ parameters: [any SQLBindable],
                                  _ body: (OpaquePointer) throws -> T) throws -> T {
        let statement = try prepared(sql)
        // Reset even on error: a statement left mid-step would pin a read snapshot.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, parameter) in parameters.enumerated() {
            try bind(parameter.sqlValue, at: Int32(offset + 1), to: statement, sql: sql)
        }
        return try body(statement)
    }

    private func bind(_ value: SQLValue, at index: Int32, to statement: OpaquePointer, sql: String) throws {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(statement, index)
        case .integer(let number):
            rc = sqlite3_bind_int64(statement, index, number)
        case .bool(let flag):
            // SQLite has no boolean type: 0 and 1 in INTEGER columns.
            rc = sqlite3_bind_int64(statement, index, flag ? 1 : 0)
        case .text(let string):
            // Explicit byte length: strings with embedded NULs are not truncated.
            let length = Int32(string.utf8.count)
            rc = string.withCString { gh_sqlite3_bind_text_transient(statement, index, $0, length) }
        case .blob(let bytes):
            if bytes.isEmpty {
                // A nil pointer would bind NULL, not an empty blob.
                rc = sqlite3_bind_zeroblob(statement, index, 0)
            } else {
                rc = bytes.withUnsafeBytes {
                    gh_sqlite3_bind_blob_transient(statement, index, $0.baseAddress, Int32($0.count))
                }
            }
        }
        guard rc == SQLITE_OK else {
            throw StoreError.sqlite(code: rc, message: "bind parameter \(index)", context: sql)
        }
    }

    /// Steps once: true when a row is available, false when done.
    private func step(_ statement: OpaquePointer, _ sql: String) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let db = try openHandle()
            throw StoreError.sqlite(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)),
                                    context: sql)
        }
    }
}
