import Foundation
import GatehouseStore

/// One schema version's DDL for one backend. Version numbers and names follow `StoreSchema.versions`.
public struct SQLMigration: Sendable {
    public let version: Int
    public let name: String
    /// Statements run inside the migration's transaction.
    public let sql: String
    /// Work on existing rows done after `sql` commits, each step in short transactions of its own; the
    /// version is recorded when the last one ends (see `SQLOnlineStep`).
    public let online: [SQLOnlineStep]

    public init(version: Int, name: String, sql: String, online: [SQLOnlineStep] = []) {
        self.version = version
        self.name = name
        self.sql = sql
        self.online = online
    }
}

/// What the migrator needs of a backend's connection beyond `SQLConnection`.
public protocol SQLMigratingConnection: SQLConnection {
    /// Runs statements without parameters (DDL; may hold several).
    func execute(_ sql: String) throws
    /// Runs `body` in a transaction no other migrator (in this process or another) runs beside:
    /// SQLite `BEGIN IMMEDIATE`; PostgreSQL `BEGIN` and a transaction-scoped advisory lock.
    func migrationTransaction<T>(_ body: () throws -> T) throws -> T
    /// Whether the table `name` exists (PostgreSQL: as found through `search_path`).
    func tableExists(_ name: String) throws -> Bool
    /// Runs `body` (the online steps of one migration) holding the migration lock between its
    /// transactions too: PostgreSQL a session-level advisory lock; SQLite needs none (each step's
    /// `BEGIN IMMEDIATE` serialises it, and the steps are idempotent).
    func withMigrationLock<T>(_ body: () throws -> T) throws -> T
    /// Builds `index` on existing rows without holding the writer where the backend can (outside any
    /// transaction): PostgreSQL `CREATE INDEX CONCURRENTLY`; SQLite one write transaction. Returns whether
    /// the build held the writer (was one transaction).
    func buildIndexOnline(_ index: SQLOnlineIndex) throws -> Bool
}

/// Applies the migrations in a backend's types, each version in its own transaction, and keeps the
/// bookkeeping both backends share: one row per applied version in `gatehouse_schema_migrations`
/// (not `PRAGMA user_version`), so it also shows when each version was applied. Every migrating
/// transaction re-reads the version first, so processes that start at once apply each version
/// exactly once.
public struct SQLMigrator: Sendable {
    public static let bookkeepingTable = "gatehouse_schema_migrations"

    private let migrations: [SQLMigration]
    /// `CREATE TABLE IF NOT EXISTS gatehouse_schema_migrations …` in the backend's types.
    private let bookkeepingDDL: String

    /// The one list, `StoreMigrations`, in a backend's types.
    public init(types: SQLSchemaTypes) {
        self.init(types: types, migrations: StoreMigrations.all(types))
    }

    /// Another list (in version order) with the same bookkeeping: for tests of the migrator itself.
    public init(types: SQLSchemaTypes, migrations: [SQLMigration]) {
        self.migrations = migrations
        bookkeepingDDL = StoreMigrations.bookkeeping(types)
    }

    /// The latest schema version these migrations reach.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Blocking; runs on the connection's own queue. Throws `StoreError.schemaTooNew` (and
    /// changes nothing) when the database was migrated by a newer build.
    public func migrate(_ connection: some SQLMigratingConnection) throws -> MigrationReport {
        let supported = latestVersion
        let initial = try connection.migrationTransaction { () throws -> Int in
            try connection.execute(bookkeepingDDL)
            return try currentVersion(connection)
        }
        if initial > supported { throw StoreError.schemaTooNew(found: initial, supported: supported) }

        var applied: [Int] = []
        for migration in migrations where migration.version > initial {
            let didApply: Bool
            if migration.online.isEmpty {
                didApply = try connection.migrationTransaction { () throws -> Bool in
                    guard try isPending(migration, connection) else { return false }
                    try connection.execute(migration.sql)
                    try record(migration, connection)
                    return true
                }
            } else {
                didApply = try connection.withMigrationLock { () throws -> Bool in
                    let pending = try connection.migrationTransaction { () throws -> Bool in
                        guard try isPending(migration, connection) else { return false }
                        try connection.execute(migration.sql)
                        return true
                    }
                    guard pending else { return false }
                    for step in migration.online { _ = try Self.run(step, connection) }
                    return try connection.migrationTransaction { () throws -> Bool in
                        guard try isPending(migration, connection) else { return false }
                        try record(migration, connection)
                        return true
                    }
                }
            }
            if didApply { applied.append(migration.version) }
        }
        return MigrationReport(fromVersion: initial, toVersion: try currentVersion(connection), applied: applied)
    }

    /// Re-read under the lock: another process may have migrated meanwhile.
    private func isPending(_ migration: SQLMigration, _ connection: some SQLMigratingConnection) throws -> Bool {
        let current = try currentVersion(connection)
        if current > latestVersion { throw StoreError.schemaTooNew(found: current, supported: latestVersion) }
        return current < migration.version
    }

    private func record(_ migration: SQLMigration, _ connection: some SQLMigratingConnection) throws {
        try connection.run("INSERT INTO \(Self.bookkeepingTable) (version, name, applied_at) VALUES (?, ?, ?)",
                           [migration.version, migration.name, Date()])
    }

    /// Runs one online step on `connection` outside any transaction, as a migration does after its DDL (the
    /// migration lock held on PostgreSQL), and reports what it held. `gatehouse bench online-step` replays a
    /// step of a shipped migration this way on a large database.
    public static func runOnline(_ step: SQLOnlineStep, _ connection: some SQLMigratingConnection) throws -> SQLOnlineStepReport {
        try connection.withMigrationLock { try run(step, connection) }
    }

    private static func run(_ step: SQLOnlineStep, _ connection: some SQLMigratingConnection) throws -> SQLOnlineStepReport {
        let clock = ContinuousClock()
        let began = clock.now
        var report = SQLOnlineStepReport()
        switch step {
        case .index(let index):
            if try connection.buildIndexOnline(index) { report.record(clock.now - began, rows: 0) }
        case .backfill(let batch):
            // Short transactions, each sized to hold the writer about `WriterHoldPacing.holdTarget`, with a
            // rest as long as the last one between them: other processes' writers get in between batches.
            // The first batch is the smallest: its rows' cost is unknown, and a quick batch doubles the next.
            let pacing = WriterHoldPacing(largest: SQLOnlineStep.largestBackfillBatch)
            var size = min(WriterHoldPacing.smallestBatch, pacing.largest)
            while true {
                let started = clock.now
                let changed = try connection.migrationTransaction { try connection.run(batch, [size]) }
                let held = clock.now - started
                report.record(held, rows: changed)
                guard changed > 0 else { break }
                size = pacing.next(after: size, held: held)
                Thread.sleep(forTimeInterval: WriterHoldPacing.seconds(WriterHoldPacing.rest(after: held)))
            }
        }
        report.total = clock.now - began
        return report
    }

    /// The version the database is at; 0 when the bookkeeping table does not exist yet.
    public func currentVersion(_ connection: some SQLMigratingConnection) throws -> Int {
        guard try connection.tableExists(Self.bookkeepingTable) else { return 0 }
        return try connection.queryOne("SELECT COALESCE(MAX(version), 0) FROM \(Self.bookkeepingTable)", []) {
            $0.int(0)
        } ?? 0
    }
}
