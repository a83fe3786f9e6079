import CSQLite
import Foundation
import GatehouseStore

/// A consistent copy of a live SQLite database through SQLite's online backup API.
///
/// The copy is made from one read transaction held on the source for the whole copy: in WAL mode a
/// reader never blocks the writer, and the fixed snapshot means concurrent commits never restart the
/// copy. Pages are copied `pagesPerStep` at a time with a short pause between steps, so the copy
/// never hogs the disk or a core for long. The result is written to a temporary file beside the
/// target, checked with `PRAGMA integrity_check`, and only then renamed onto the target.
public enum SQLiteBackup {
    /// What a finished copy holds.
    public struct Report: Sendable, Equatable {
        public let pages: Int
        public let steps: Int
        public let bytes: Int
    }

    /// Pages copied per `sqlite3_backup_step` (of the database's page size, 4 KiB by default).
    public static let defaultPagesPerStep: Int32 = 256

    /// Copies the database at `sourcePath` to `targetPath`. Blocking; run it off the cooperative pool.
    /// Throws `StoreError` when SQLite fails or the copy does not pass the integrity check.
    public static func copy(sourcePath: String, targetPath: String, pagesPerStep: Int32 = defaultPagesPerStep,
                            pauseMicroseconds: UInt32 = 1000) throws -> Report {
        let partial = targetPath + ".partial-\(getpid())"
        let partialFiles = [partial, partial + "-journal", partial + "-wal", partial + "-shm"]
        for file in partialFiles { unlink(file) }
        defer { for file in partialFiles { unlink(file) } }
        var sourceHandle: OpaquePointer?, targetHandle: OpaquePointer?
        defer { sqlite3_close_v2(sourceHandle); sqlite3_close_v2(targetHandle) }
        // Read-write without CREATE: a read-only handle cannot set up the WAL index when the server is not running.
        guard sqlite3_open_v2(sourcePath, &sourceHandle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let source = sourceHandle else {
            throw failure(sourceHandle, "open \(sourcePath)")
        }
        sqlite3_busy_timeout(source, 5000)
        try exec(source, "PRAGMA query_only=ON")
        guard sqlite3_open_v2(partial, &targetHandle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              let target = targetHandle else {
            throw failure(targetHandle, "create \(partial)")
        }
        // The snapshot every step reads from; it ends when the source closes.
        try exec(source, "BEGIN; SELECT count(*) FROM sqlite_schema")
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else { throw failure(target, "backup_init") }
        var steps = 0
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            steps += 1
            if rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED { usleep(pauseMicroseconds) }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let pages = Int(sqlite3_backup_pagecount(backup))
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw failure(target, "backup_step (\(rc))") }
        try exec(source, "COMMIT")
        // The copy is a plain single file: no -wal beside it to forget when it is moved.
        try exec(target, "PRAGMA journal_mode=DELETE")
        let verdict = try integrityCheck(target)
        guard verdict == "ok" else {
            throw StoreError.unavailable(detail: "sqlite backup: integrity_check of the copy says: \(verdict)")
        }
        sqlite3_close_v2(target)
        targetHandle = nil
        guard rename(partial, targetPath) == 0 else {
            throw StoreError.unavailable(detail: "sqlite backup: rename to \(targetPath): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let bytes = stat(targetPath, &info) == 0 ? Int(info.st_size) : 0
        return Report(pages: pages, steps: steps, bytes: bytes)
    }

    private static func integrityCheck(_ db: OpaquePointer) throws -> String {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else {
            throw failure(db, "integrity_check")
        }
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
            lines.append(String(cString: text))
        }
        return lines.isEmpty ? "no result" : lines.joined(separator: "; ")
    }

    private static func exec(_ db: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw failure(db, sql) }
    }

    private static func failure(_ db: OpaquePointer?, _ context: String) -> StoreError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
        return StoreError.unavailable(detail: "sqlite backup: \(context): \(message)")
    }
}
