import Foundation
import GatehousePostgres
import GatehouseSQLStore
import GatehouseSQLite
import GatehouseStore
import Testing

/// Migrations with online steps (`SQLOnlineStep`): the backfill runs batch after batch until nothing is
/// left, the index is built, and the version is recorded only once every step has finished — so a step
/// that fails leaves the version pending and the next run finishes it.
@Suite("Online migration steps")
struct OnlineMigrationTests {
    static let rows = 2_500
    static var seeded: Int { StoreSchema.latestVersion + 1 }
    static var online: Int { StoreSchema.latestVersion + 2 }

    /// A table of `rows` rows with nothing done; recursive CTEs run on both backends.
    static let seed = SQLMigration(version: seeded, name: "online_demo", sql: """
        CREATE TABLE online_demo (id INTEGER PRIMARY KEY NOT NULL, email TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
        INSERT INTO online_demo (id, email) SELECT i, 'user' || i || '@example.com' FROM n;
        """)

    /// At most `SQLOnlineStep.largestBackfillBatch` (1,000) rows a run, the `?`: the 2,500 rows take at least three
    /// runs and one that changes nothing.
    static let backfill = "UPDATE online_demo SET done = 1 WHERE id IN (SELECT id FROM online_demo WHERE done = 0 ORDER BY id LIMIT ?)"
    static let index = SQLOnlineIndex(name: "online_demo_by_email", table: "online_demo", columns: "email", unique: true)

    static func migrations(backfill: String = backfill) -> [SQLMigration] {
        [seed, SQLMigration(version: online, name: "online_demo_done", sql: "CREATE TABLE IF NOT EXISTS online_demo_marker (x INTEGER)",
                            online: [.backfill(backfill), .index(index)])]
    }

    @Test func sqliteRunsTheBackfillInBatchesBuildsTheIndexAndRecordsTheVersionLast() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("online.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        _ = try await db.migrate()
        // A backfill that fails midway (no such column): the version stays pending, the index is not built.
        await #expect(throws: (any Error).self) {
            _ = try await db.migrate(using: SQLMigrator(types: .sqlite, migrations: Self.migrations(backfill: "UPDATE online_demo SET nope = 1")))
        }
        #expect(try await db.schemaVersion() == Self.seeded)
        #expect(try RawSQLite.scalar(path: path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'online_demo_by_email'") == "0")

        let report = try await db.migrate(using: SQLMigrator(types: .sqlite, migrations: Self.migrations()))
        #expect(report.applied == [Self.online])
        #expect(try await db.schemaVersion() == Self.online)
        #expect(try RawSQLite.scalar(path: path, "SELECT COUNT(*) FROM online_demo WHERE done = 0") == "0")
        #expect(try RawSQLite.scalar(path: path, "SELECT COUNT(*) FROM online_demo WHERE done = 1") == "\(Self.rows)")
        #expect(try RawSQLite.scalar(path: path, "SELECT sql FROM sqlite_master WHERE name = 'online_demo_by_email'")?
            .contains("UNIQUE INDEX") == true)
        let again = try await db.migrate(using: SQLMigrator(types: .sqlite, migrations: Self.migrations()))
        #expect(again.applied.isEmpty)
        await db.close()
    }

    @Test(.enabled(if: PostgresTestCluster.isEnabled))
    func postgresBuildsTheIndexConcurrentlyAndRebuildsOneACrashLeftInvalid() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            await #expect(throws: (any Error).self) {
                _ = try await db.migrate(using: SQLMigrator(types: .postgres, migrations: Self.migrations(backfill: "UPDATE online_demo SET nope = 1")))
            }
            #expect(try await db.schemaVersion() == Self.seeded)

            let report = try await db.migrate(using: SQLMigrator(types: .postgres, migrations: Self.migrations()))
            #expect(report.applied == [Self.online])
            let done = try await RawPostgres.execute(url: schema.baseURL, "SELECT COUNT(*) FROM \(schema.name).online_demo WHERE done = 1")
            #expect(done.first?.first == "\(Self.rows)")
            let valid = """
                SELECT i.indisvalid, i.indisunique FROM pg_index i WHERE i.indexrelid = '\(schema.name).online_demo_by_email'::regclass
                """
            #expect(try await RawPostgres.execute(url: schema.baseURL, valid).first == ["t", "t"])

            // As a crashed CONCURRENTLY build leaves it: present but invalid, with the version not recorded.
            try await RawPostgres.execute(url: schema.baseURL, """
                UPDATE pg_index SET indisvalid = false WHERE indexrelid = '\(schema.name).online_demo_by_email'::regclass;
                DELETE FROM \(schema.name).gatehouse_schema_migrations WHERE version = \(Self.online);
                """)
            let rerun = try await db.migrate(using: SQLMigrator(types: .postgres, migrations: Self.migrations()))
            #expect(rerun.applied == [Self.online])
            #expect(try await RawPostgres.execute(url: schema.baseURL, valid).first == ["t", "t"])
            await db.close()
        }
    }

    @Test func theStatementWithoutConcurrentlyIsIdempotent() {
        #expect(Self.index.createStatement == "CREATE UNIQUE INDEX IF NOT EXISTS online_demo_by_email ON online_demo (email)")
        #expect(SQLOnlineIndex(name: "a", table: "t", columns: "lower(email), id").createStatement
            == "CREATE INDEX IF NOT EXISTS a ON t (lower(email), id)")
        #expect(SQLOnlineIndex(name: "p", table: "users", columns: "id", predicate: "NOT imported").createStatement
            == "CREATE INDEX IF NOT EXISTS p ON users (id) WHERE NOT imported")
        #expect(SQLOnlineIndex(name: "g", table: "users", columns: "email gin_trgm_ops", method: "gin").createStatement
            == "CREATE INDEX IF NOT EXISTS g ON users USING gin (email gin_trgm_ops)")
    }

    /// A batch of 1,000 rows that each rewrite 20 KB holds the writer far past 5 ms: the next batches shrink
    /// (so there are many more than three), every row is still done, and the report says what was held.
    @Test func backfillBatchesShrinkToTheHoldTargetAndTheReportCountsThem() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("paced.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        _ = try await db.migrate()
        _ = try await db.migrate(using: SQLMigrator(types: .sqlite, migrations: [Self.seed]))
        let heavy = """
            UPDATE online_demo SET done = 1, email = email || hex(randomblob(10000))
            WHERE id IN (SELECT id FROM online_demo WHERE done = 0 ORDER BY id LIMIT ?)
            """
        let report = try await db.runOnline(.backfill(heavy))
        #expect(report.rows == Self.rows)
        #expect(report.transactions > 5)
        #expect(report.longestTransaction > .zero)
        #expect(report.total >= report.longestTransaction)
        #expect(try RawSQLite.scalar(path: path, "SELECT COUNT(*) FROM online_demo WHERE done = 0") == "0")

        let index = try await db.runOnline(.index(SQLOnlineIndex(name: "online_demo_done", table: "online_demo",
                                                                 columns: "id", predicate: "done = 0")))
        #expect(index.transactions == 1)
        #expect(try RawSQLite.scalar(path: path, "SELECT sql FROM sqlite_master WHERE name = 'online_demo_done'")?
            .hasSuffix("WHERE done = 0") == true)
        await db.close()
    }
}
