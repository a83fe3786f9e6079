import GatehouseSQLStore

/// The shared migrator in PostgreSQL's types.
///
/// Every migrating transaction first takes a transaction-scoped advisory lock, so processes
/// that start at once queue up instead of racing (concurrent `CREATE TABLE IF NOT EXISTS`
/// alone can fail with a unique violation in the catalog).
enum PostgresMigrator {
    static let shared = SQLMigrator(types: .postgres)

    /// First half of the advisory lock key ("GHSM"); the second half is a hash of the schema
    /// being migrated, so separate schemas in one database do not wait for each other.
    static let lockClass: Int32 = 0x4748_534D
}

extension PostgresConnection: SQLMigratingConnection {
    /// `BEGIN`, then wait (without the statement timeout: another process may be mid-migration)
    /// for the migration lock, held until the transaction ends.
    func migrationTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction {
            try execute("SET LOCAL statement_timeout = 0")
            try run("SELECT pg_advisory_xact_lock(?, hashtext(COALESCE(current_schema(), '')))", [PostgresMigrator.lockClass])
            return try body()
        }
    }

    /// Looked up through `search_path`.
    func tableExists(_ name: String) throws -> Bool {
        try queryOne("SELECT to_regclass(?) IS NOT NULL", [name]) { $0.bool(0) } ?? false
    }

    /// A session-level advisory lock on the migration key; the migrating transactions inside take the
    /// same key again, which a session already holding it is always granted.
    func withMigrationLock<T>(_ body: () throws -> T) throws -> T {
        try execute("SET statement_timeout = 0")
        defer { try? execute("SET statement_timeout = \(statementTimeoutMilliseconds)") }
        try run("SELECT pg_advisory_lock(?, hashtext(COALESCE(current_schema(), '')))", [PostgresMigrator.lockClass])
        defer { _ = try? run("SELECT pg_advisory_unlock(?, hashtext(COALESCE(current_schema(), '')))", [PostgresMigrator.lockClass]) }
        return try body()
    }

    /// `CREATE INDEX CONCURRENTLY`, outside any transaction (it cannot run in one): it takes a lock that
    /// lets writes go on. A build a crash left behind is marked invalid and would satisfy `IF NOT
    /// EXISTS`, so an invalid index of that name is dropped first.
    func buildIndexOnline(_ index: SQLOnlineIndex) throws -> Bool {
        let invalid = try queryOne("""
            SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE c.oid = to_regclass(?) AND NOT i.indisvalid
            """, [index.name]) { _ in true } ?? false
        if invalid { try execute("DROP INDEX CONCURRENTLY IF EXISTS \(index.name)") }
        try execute(index.createStatement.replacingOccurrences(of: "INDEX IF NOT EXISTS", with: "INDEX CONCURRENTLY IF NOT EXISTS"))
        return false
    }
}
