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
    /// An `UPDATE`, `DELETE` or `INSERT … SELECT` that changes at most one batch of rows per run and leaves
    /// out rows already done. Its one parameter (`?`, as in `LIMIT ?`) is the batch's size: 10 rows first,
    /// doubling while batches hold the writer under `WriterHoldPacing.holdTarget`, shrinking in proportion
    /// when one holds it longer, never more than ``SQLOnlineStep/largestBackfillBatch``. It runs in its own
    /// short transactions, resting as long as each took, until a run changes no row.
    case backfill(String)

    /// The most rows one backfill batch changes (fewer where a batch of them holds the writer too long).
    public static let largestBackfillBatch = 1_000
}

/// `CREATE [UNIQUE] INDEX name ON table [USING method] (columns) [WHERE predicate]`.
public struct SQLOnlineIndex: Sendable, Equatable {
    public let name: String
    public let table: String
    /// The indexed columns or expressions, as written between the parentheses.
    public let columns: String
    public let unique: Bool
    /// A partial index's condition (`WHERE …` without the keyword), or nil for every row.
    public let predicate: String?
    /// PostgreSQL's access method (`gin`), or nil for the default B-tree.
    public let method: String?

    public init(name: String, table: String, columns: String, unique: Bool = false, predicate: String? = nil,
                method: String? = nil) {
        self.name = name
        self.table = table
        self.columns = columns
        self.unique = unique
        self.predicate = predicate
        self.method = method
    }

    /// The statement without `CONCURRENTLY`: `CREATE [UNIQUE] INDEX IF NOT EXISTS name ON table [USING …] (columns) [WHERE …]`.
    public var createStatement: String {
        "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(name) ON \(table)" + (method.map { " USING \($0)" } ?? "")
            + " (\(columns))" + (predicate.map { " WHERE \($0)" } ?? "")
    }
}

/// What one online step held: how many transactions it ran, the longest of them and the step's whole time
/// (rests between backfill batches included). On PostgreSQL a concurrent index build is no transaction.
public struct SQLOnlineStepReport: Sendable, Equatable {
    public var transactions = 0
    public var rows = 0
    public var longestTransaction: Duration = .zero
    /// Transactions that held the writer longer than ``longHold`` (twice the pacing's target).
    public var longTransactions = 0
    public var total: Duration = .zero

    /// What counts as a long transaction: 10 ms, the most a migration should hold the writer at a time.
    public static let longHold: Duration = .milliseconds(10)

    public init() {}

    mutating func record(_ held: Duration, rows changed: Int) {
        transactions += 1
        rows += changed
        longestTransaction = max(longestTransaction, held)
        if held > Self.longHold { longTransactions += 1 }
    }
}
