import GatehouseSQLStore

/// The shared migrator over `SQLiteMigrations.all`, run on the writer connection.
enum SQLiteMigrator {
    static let shared = SQLMigrator(
        migrations: SQLiteMigrations.all.map { SQLMigration(version: $0.version, name: $0.name, sql: $0.sql) },
        bookkeepingDDL: """
            CREATE TABLE IF NOT EXISTS \(SQLMigrator.bookkeepingTable) (
                version INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            )
            """)
}

extension SQLiteConnection: SQLMigratingConnection {
    /// `BEGIN IMMEDIATE`: the write lock, taken up front, keeps other processes' migrators out.
    func migrationTransaction<T>(_ body: () throws -> T) throws -> T {
        try writeTransaction(body)
    }

    func tableExists(_ name: String) throws -> Bool {
        try queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) { _ in true } ?? false
    }
}
