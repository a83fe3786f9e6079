import CSQLite
import GatehouseStore

extension StoreError {
    /// Translates an SQLite result code into the backend-neutral error. The SQLite message goes
    /// only into `detail`, never into the public description.
    static func sqlite(code: Int32, message: String, context: String) -> StoreError {
        let detail = "sqlite \(code): \(message) [\(context)]"
        switch code {
        case SQLiteResultCode.constraintUnique, SQLiteResultCode.constraintPrimaryKey:
            return .conflict(detail: detail)
        case SQLiteResultCode.constraintForeignKey:
            // An insert that refers to a missing parent row: the parent was not found.
            return .notFound(detail: detail)
        default:
            break
        }
        switch code & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_CANTOPEN, SQLITE_NOTADB, SQLITE_READONLY:
            return .unavailable(detail: detail)
        default:
            return .failure(detail: detail)
        }
    }
}

/// Extended result codes, spelled out because the `(SQLITE_CONSTRAINT | (n<<8))` macros are
/// not reliably imported into Swift.
enum SQLiteResultCode {
    static let constraintForeignKey: Int32 = SQLITE_CONSTRAINT | (3 << 8)   // 787
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)   // 1555
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)       // 2067
}
