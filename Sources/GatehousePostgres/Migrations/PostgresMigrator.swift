import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Applies `PostgresMigrations.all`, each version in its own transaction.
///
/// Every migrating transaction first takes a transaction-scoped advisory lock, so processes
/// that start at once queue up instead of racing (concurrent `CREATE TABLE IF NOT EXISTS`
/// alone can fail with a unique violation in the catalog); each re-reads the version under the
/// lock, so every version is applied exactly once. Bookkeeping is the same
/// `gatehouse_schema_migrations` table the SQLite backend keeps.
enum PostgresMigrator {
    static let bookkeepingTable = "gatehouse_schema_migrations"

    /// First half of the advisory lock key ("GHSM"); the second half is a hash of the schema
    /// being migrated, so separate schemas in one database do not wait for each other.
    static let lockClass: Int32 = 0x4748_534D

    static var latestVersion: Int { PostgresMigrations.all.last?.version ?? 0 }

    /// Blocking; runs on a slot's queue.
    static func migrate(_ connection: PostgresConnection) throws -> MigrationReport {
        let supported = latestVersion
        let initial = try connection.transaction { () throws -> Int in
            try lock(connection)
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(bookkeepingTable) (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """)
            return try currentVersion(connection)
        }
        if initial > supported { throw StoreError.schemaTooNew(found: initial, supported: supported) }

        var applied: [Int] = []
        for migration in PostgresMigrations.all where migration.version > initial {
            let didApply = try connection.transaction { () throws -> Bool in
                try lock(connection)
                // Re-read under the lock: another process may have migrated meanwhile.
                let current = try currentVersion(connection)
                if current > supported { throw StoreError.schemaTooNew(found: current, supported: supported) }
                guard current < migration.version else { return false }
                try connection.execute(migration.sql)
                try connection.run("INSERT INTO \(bookkeepingTable) (version, name, applied_at) VALUES ($1, $2, $3)",
                                   [migration.version, migration.name, Date()])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return MigrationReport(fromVersion: initial, toVersion: try currentVersion(connection), applied: applied)
    }

    /// 0 when the bookkeeping table does not exist yet (looked up through `search_path`).
    static func currentVersion(_ connection: PostgresConnection) throws -> Int {
        let exists = try connection.queryOne("SELECT to_regclass($1) IS NOT NULL", [bookkeepingTable]) { $0.bool(0) } ?? false
        guard exists else { return 0 }
        return try connection.queryOne("SELECT COALESCE(MAX(version), 0) FROM \(bookkeepingTable)", []) { $0.int(0) } ?? 0
    }

    /// Waits (without the statement timeout: another process may be mid-migration) for the
    /// migration lock, held until the transaction ends.
    private static func lock(_ connection: PostgresConnection) throws {
        try connection.execute("SET LOCAL statement_timeout = 0")
        try connection.run("SELECT pg_advisory_xact_lock($1, hashtext(COALESCE(current_schema(), '')))", [lockClass])
    }
}
