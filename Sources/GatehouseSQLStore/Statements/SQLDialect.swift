/// What really differs between the two backends, chosen once when a database is opened: a few SQL
/// words, and a few strategies named for what they do, so no store asks which backend it runs on.
/// Everything else — upserts (`ON CONFLICT … DO UPDATE`, `excluded.`), `RETURNING`, row values,
/// `CAST`, `TRUE`/`FALSE` — is written once and runs on both.
///
/// Placeholders: statements are written with `?` (named parameters through `SQLTemplate` where one
/// repeats). SQLite takes them as they are; the PostgreSQL connection rewrites them to `$1, $2, …`
/// (`SQLPlaceholders.numbered`) once, when it prepares a statement it has not seen.
public struct SQLDialect: Sendable {
    /// `sqlite` or `postgres`, for error details.
    public let name: String
    /// Appended to a SELECT inside `SQLDatabase.transaction` that reads rows it will then change:
    /// ` FOR UPDATE` on PostgreSQL; empty on SQLite, whose write transaction already excludes
    /// every other writer.
    public let forUpdate: String
    /// Appended to a sub-select that claims rows: ` FOR UPDATE SKIP LOCKED` on PostgreSQL, so
    /// concurrent claimers take different rows; empty on SQLite (one writer).
    public let forUpdateSkipLocked: String
    /// The scalar "larger of two values": `MAX` in SQLite, `GREATEST` in PostgreSQL.
    public let greatest: String
    /// How several reads on one connection see one state of the database.
    public let readSnapshot: SQLReadSnapshot
    /// How the account page's live grants are read.
    public let activeGrants: SQLActiveGrantsRead
    /// How a refresh token is rotated.
    public let refreshRotation: SQLRefreshRotation
    /// How the administrators' email search finds its matches.
    public let emailSearch: SQLEmailSearch
    /// How statements binding long value lists are planned.
    public let listPlanning: SQLListPlanning
    /// What the planner knows of the tables' contents after a bulk write.
    public let statistics: SQLStatistics
    /// How a bulk load sets the secondary indexes of empty tables aside and builds them after its rows.
    public let indexRebuild: SQLIndexRebuild

    public static let sqlite = SQLDialect(name: "sqlite", forUpdate: "", forUpdateSkipLocked: "", greatest: "MAX",
                                          readSnapshot: .readTransaction, activeGrants: .walk,
                                          refreshRotation: .writerTransaction, emailSearch: .trigramTable,
                                          listPlanning: .asPrepared, statistics: .notKept,
                                          indexRebuild: .schemaTable)
    public static let postgres = SQLDialect(name: "postgres", forUpdate: " FOR UPDATE",
                                            forUpdateSkipLocked: " FOR UPDATE SKIP LOCKED", greatest: "GREATEST",
                                            readSnapshot: .autocommit, activeGrants: .recursiveQuery,
                                            refreshRotation: .claimStatement, emailSearch: .plannerChooses,
                                            listPlanning: .perRun, statistics: .analyzedAfterBulkWrites,
                                            indexRebuild: .catalog)
}

/// What the planner knows of the tables' contents, and what a bulk write (`gatehouse user import`) does about it.
public enum SQLStatistics: Sendable {
    /// SQLite: without `sqlite_stat1` (no `ANALYZE` is ever run) its plans do not depend on the tables' contents.
    case notKept
    /// PostgreSQL: the tables a bulk write filled are analyzed at its end. Autovacuum would analyze them only a
    /// minute or so later, and until then queries on an imported base are planned as if its tables were empty.
    case analyzedAfterBulkWrites

    /// Brings the planner's statistics of `tables` up to date, as this says (SQLite: not even the writer is taken).
    func refresh<Database: SQLDatabase>(_ tables: [String], in database: Database) async throws {
        guard self == .analyzedAfterBulkWrites else { return }
        try await database.transaction { db in
            for table in tables { _ = try db.run("ANALYZE \(table)", []) }
        }
    }
}

/// How statements that bind long value lists (`key IN (?, ?, …)`, a bulk import's lookups) are planned.
public enum SQLListPlanning: Sendable {
    /// Once, when prepared (SQLite: without collected statistics its plans do not depend on table sizes).
    case asPrepared
    /// For the values at every run (PostgreSQL, `plan_cache_mode = force_custom_plan`): after five runs a prepared
    /// statement may keep a generic plan made while a bulk import's table was still small, a scan of the whole
    /// table for every list — an import of 100,000 rows went quadratic on it. Bitmap scans are off too: the
    /// planner costs `pg_trgm`'s GIN index as cheap for `email IN (…)` (its operator class serves `=`), and a
    /// list of 500 emails through it read every account whose email shares a trigram, some seconds a batch.
    case perRun

    /// The settings `perRun` gives the statements it runs (`SET LOCAL` in a transaction, `SET` and `RESET` outside).
    static let perRunSettings = [("plan_cache_mode", "force_custom_plan"), ("enable_bitmapscan", "off")]

    /// Runs `body` with its statements planned as this says; `inTransaction`: `db` is inside a transaction,
    /// which then scopes the setting (otherwise it is reset afterwards).
    func run<T>(_ db: some SQLConnection, inTransaction: Bool, _ body: () throws -> T) throws -> T {
        switch self {
        case .asPrepared:
            return try body()
        case .perRun where inTransaction:
            for (name, value) in Self.perRunSettings { _ = try db.run("SET LOCAL \(name) = \(value)", []) }
            return try body()
        case .perRun:
            defer { for (name, _) in Self.perRunSettings { _ = try? db.run("RESET \(name)", []) } }
            for (name, value) in Self.perRunSettings { _ = try db.run("SET \(name) = \(value)", []) }
            return try body()
        }
    }
}

/// How a group of reads on one connection is run.
public enum SQLReadSnapshot: Sendable {
    /// In one read transaction (SQLite): each autocommitted read takes and drops the WAL read lock
    /// (`fcntl` calls, a twentieth of the account page); one transaction takes it once, and the lists
    /// come from one snapshot.
    case readTransaction
    /// Each statement autocommitted (PostgreSQL): `BEGIN`/`COMMIT` would be two more round trips.
    case autocommit

    /// Runs `body`'s statements on `db` as this strategy says.
    func run<T>(_ db: some SQLConnection, _ body: () throws -> T) throws -> T {
        switch self {
        case .autocommit:
            return try body()
        case .readTransaction:
            _ = try db.run("BEGIN", [])
            do {
                let result = try body()
                _ = try db.run("COMMIT", [])
                return result
            } catch {
                // Never leave a reader holding its snapshot (the WAL could not be checkpointed past it).
                _ = try? db.run("ROLLBACK", [])
                throw error
            }
        }
    }
}

/// How `RefreshTokenStore.activeGrants` is read.
public enum SQLActiveGrantsRead: Sendable {
    /// One small statement per client (`ActiveGrantsWalk`): SQLite opens no temporary table for it.
    case walk
    /// One recursive statement (`ActiveGrantsQuery`): on PostgreSQL each statement is a round trip.
    case recursiveQuery
}

/// How `RefreshTokenStore.rotate` and `exchange` change a token.
public enum SQLRefreshRotation: Sendable {
    /// Read, decide and write in the single writer's transaction (SQLite), which already excludes
    /// every other writer: one hop.
    case writerTransaction
    /// Claim the current token and insert its successor in one data-modifying statement (PostgreSQL,
    /// `RefreshTokenSQL.claimAndInsert`); every other case takes a locking transaction.
    case claimStatement
}

/// How `UserSearchStore.search` finds the accounts whose email contains the query.
public enum SQLEmailSearch: Sendable {
    /// SQLite: its planner cannot weigh a full-text match against the creation-order walk, so the store
    /// samples the query's trigrams, asks the trigram table for its uncommon stretches (up to a bound of
    /// matches) and picks the plan itself (`EmailTrigramQuery`).
    case trigramTable
    /// PostgreSQL: one `LIKE` statement; the planner weighs the `pg_trgm` index against the creation-order
    /// walk from the column's statistics (and reads every email when `pg_trgm` was not available). A query
    /// holding an `@` offers the index only its local part with the `@` (`String.localPartThroughAt`).
    case plannerChooses
}
