import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Applies `SQLiteMigrations.all` on the writer connection.
///
/// The applied versions are rows of `gatehouse_schema_migrations` (not `PRAGMA user_version`)
/// so the same bookkeeping works in PostgreSQL and shows when each version was applied.
enum SQLiteMigrator {
    static let bookkeepingTable = "gatehouse_schema_migrations"

    static var latestVersion: Int { SQLiteMigrations.all.last?.version ?? 0 }

    /// Blocking; runs on the writer queue.
    static func migrate(_ connection: SQLiteConnection) throws -> MigrationReport {
        let supported = latestVersion
        let initial = try connection.writeTransaction { () throws -> Int in
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(bookkeepingTable) (
                    version INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    applied_at INTEGER NOT NULL
                )
                """)
            return try currentVersion(connection)
        }
        if initial > supported { throw StoreError.schemaTooNew(found: initial, supported: supported) }

        var applied: [Int] = []
        for migration in SQLiteMigrations.all where migration.version > initial {
            let didApply = try connection.writeTransaction { () throws -> Bool in
                // Re-read under the write lock: another process may have migrated meanwhile.
                let current = try currentVersion(connection)
                if current > supported { throw StoreError.schemaTooNew(found: current, supported: supported) }
                guard current < migration.version else { return false }
                try connection.execute(migration.sql)
                try connection.run("INSERT INTO \(bookkeepingTable) (version, name, applied_at) VALUES (?, ?, ?)",
                                   [migration.version, migration.name, Date()])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return MigrationReport(fromVersion: initial, toVersion: try currentVersion(connection), applied: applied)
    }

    /// 0 when the bookkeeping table does not exist yet.
    static func currentVersion(_ connection: SQLiteConnection) throws -> Int {
        let exists = try connection.queryOne(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [bookkeepingTable]) { _ in true } ?? false
        guard exists else { return 0 }
        return try connection.queryOne("SELECT COALESCE(MAX(version), 0) FROM \(bookkeepingTable)", []) { $0.int(0) } ?? 0
    }
}
