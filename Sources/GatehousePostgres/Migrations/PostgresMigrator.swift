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
}
