import CSQLite

/// Direct SQLite access for tests that must tamper with a file the way another build or
/// process would (e.g. write a future schema version).
enum RawSQLite {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func execute(path: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw Failure(description: "open \(path)")
        }
        sqlite3_busy_timeout(db, 5_000)
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "exec failed")
        }
    }
}
