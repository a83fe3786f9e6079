import GatehouseSQLStore

/// The shared migrator in SQLite's types, run on the writer connection.
enum SQLiteMigrator {
    static let shared = SQLMigrator(types: .sqlite)
}

extension SQLiteConnection: SQLMigratingConnection {
    /// `BEGIN IMMEDIATE`: the write lock, taken up front, keeps other processes' migrators out.
    func migrationTransaction<T>(_ body: () throws -> T) throws -> T {
        try writeTransaction(body)
    }

    func tableExists(_ name: String) throws -> Bool {
        try queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) { _ in true } ?? false
    }

    /// Each online step's transaction is `BEGIN IMMEDIATE`, which serialises it with other processes.
    func withMigrationLock<T>(_ body: () throws -> T) throws -> T { try body() }

    /// SQLite cannot build an index beside writers: one write transaction for the whole build.
    func buildIndexOnline(_ index: SQLOnlineIndex) throws -> Bool {
        try writeTransaction { try execute(index.createStatement) }
        return true
    }
}
