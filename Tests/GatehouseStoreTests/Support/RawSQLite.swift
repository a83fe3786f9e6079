import CSQLite
@testable import GatehouseSQLite

/// Direct SQLite access for tests that act as another build or another process would: write a
/// future schema version, or hold the write lock.
final class RawSQLiteConnection {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var handle: OpaquePointer?

    init(path: String) throws {
        // The product's process-wide settings come first, as in the server (they must precede SQLite's initialisation).
        _ = SQLiteConnection.processConfiguration
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            throw Failure(description: "open \(path)")
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "exec failed")
        }
    }

    /// The first column of the first row as text (nil: no row, or NULL).
    func scalar(_ sql: String) throws -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}

enum RawSQLite {
    static func execute(path: String, _ sql: String) throws {
        try RawSQLiteConnection(path: path).execute(sql)
    }

    static func scalar(path: String, _ sql: String) throws -> String? {
        try RawSQLiteConnection(path: path).scalar(sql)
    }
}
