/// Work on a table's existing rows that a migration does after its DDL, in short steps of its own, so a
/// migration on a large database does not hold the writer for the length of that work (expand/contract:
/// the DDL only adds, and the old binary keeps serving on the new schema while these steps run).
///
/// A migration with online steps is recorded only once every step has finished; a crash or a second
/// process starting at once re-runs them, so its DDL must be idempotent (`IF NOT EXISTS`) and so must
/// every step (a backfill skips the rows it has already done).
public enum SQLOnlineStep: Sendable, Equatable {
    /// An index on existing rows. PostgreSQL builds it `CONCURRENTLY` (writers go on; a build left invalid
    /// by a crash is dropped and built again). SQLite cannot build an index beside writers: the build is
    /// one write transaction, as long as the table is large (docs/migrations.md gives the cost per row).
    case index(SQLOnlineIndex)
    /// An `UPDATE` or `DELETE` that changes at most one batch of rows per run and leaves out rows already
    /// done; it runs in its own short transactions until a run changes no row.
    case backfill(String)
}

/// `CREATE [UNIQUE] INDEX name ON table (columns)`.
public struct SQLOnlineIndex: Sendable, Equatable {
    public let name: String
    public let table: String
    /// The indexed columns or expressions, as written between the parentheses.
    public let columns: String
    public let unique: Bool

    public init(name: String, table: String, columns: String, unique: Bool = false) {
        self.name = name
        self.table = table
        self.columns = columns
        self.unique = unique
    }

    /// The statement without `CONCURRENTLY`: `CREATE [UNIQUE] INDEX IF NOT EXISTS name ON table (columns)`.
    public var createStatement: String {
        "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(name) ON \(table) (\(columns))"
    }
}
