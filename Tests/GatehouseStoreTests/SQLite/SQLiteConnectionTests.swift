import CSQLite
import Foundation
@testable import GatehouseSQLite
import GatehouseStore
import Testing

@Suite("SQLite connection settings")
struct SQLiteConnectionTests {
    @Test func walAndForeignKeysAreActive() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending("p.sqlite")))
        #expect(try await db.pragma("journal_mode") == "wal")
        #expect(try await db.pragma("journal_mode", onReader: true) == "wal")
        #expect(try await db.pragma("foreign_keys") == "1")
        #expect(try await db.pragma("synchronous") == "2")  // FULL: acknowledged writes survive a power loss
        #expect(try await db.pragma("synchronous", onReader: true) == "2")
        // Negative: KiB. The writer's cache holds an import batch's dirty pages, a reader's the large indexes' upper levels.
        #expect(try await db.pragma("cache_size") == "-65536")
        #expect(try await db.pragma("cache_size", onReader: true) == "-16384")
        #expect(try await db.pragma("journal_size_limit") == "16777216")
        // 0: the wait for other processes' locks is Gatehouse's own busy handler (5 s, a retry every millisecond:
        // SQLiteLockWaitTests), which replaces SQLite's timeout.
        #expect(try await db.pragma("busy_timeout") == "0")
        #expect(try await db.pragma("query_only", onReader: true) == "1")
        #expect(try await db.pragma("query_only") == "0")
        await expectStoreError(.invalidArgument) { _ = try await db.pragma("journal_mode=DELETE") }
        await db.close()
    }

    /// With memory statistics on, every `sqlite3_malloc` takes one process-wide mutex that the reader
    /// threads contend for (seen in the read paths' profile); they are switched off before
    /// SQLite initialises, and `sqlite3_memory_used` then stays 0 while connections hold memory.
    @Test func memoryStatisticsAreOffForTheProcess() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending("m.sqlite")))
        _ = try await db.migrate()
        #expect(try await db.pragma("journal_mode", onReader: true) == "wal")
        #expect(SQLiteConnection.processConfiguration == SQLITE_OK)
        #expect(sqlite3_memory_used() == 0)
        await db.close()
    }

    @Test func synchronousModeComesFromTheURL() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let normal = try await SQLiteDatabase.open(url: "sqlite://" + folder.appending("n.sqlite") + "?synchronous=normal")
        #expect(try await normal.pragma("synchronous") == "1")
        await normal.close()
        let full = try await SQLiteDatabase.open(url: "sqlite://" + folder.appending("f.sqlite") + "?synchronous=FULL")
        #expect(try await full.pragma("synchronous") == "2")
        await full.close()
        await expectStoreError(.invalidConfiguration) {
            _ = try await SQLiteDatabase.open(url: "sqlite://" + folder.appending("x.sqlite") + "?synchronous=off")
        }
        await expectStoreError(.invalidConfiguration) {
            _ = try await SQLiteDatabase.open(url: "sqlite://" + folder.appending("x.sqlite") + "?cache=shared")
        }
    }

    @Test func dataSurvivesReopen() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("r.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        _ = try await first.migrate()
        try await first.signingKeys.insert(SigningKeyStoreTests.key("persisted"))
        await first.close()

        let second = try await SQLiteDatabase.open(url: url)
        #expect(try await second.schemaVersion() == StoreSchema.latestVersion)
        #expect(try await second.signingKeys.find(kid: "persisted") == SigningKeyStoreTests.key("persisted"))
        await second.close()
    }

    @Test func closedDatabaseIsUnavailable() async throws {
        let db = try await SQLiteDatabase.open(url: "sqlite::memory:")
        try await db.ping()
        await db.close()
        await db.close()  // idempotent
        await expectStoreError(.unavailable) { try await db.ping() }
    }

    /// The start-up scan of every account (the bcrypt cost in use) leaves no pages in its reader's cache: up
    /// to 16 MiB of them would otherwise be most of the server's idle memory on a large database.
    @Test func theAccountScanLeavesTheReadersCacheEmpty() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending("c.sqlite")))
        _ = try await db.migrate()
        try await db.pool.write { c in
            try c.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                INSERT INTO users (id, email, password_hash, created_at, updated_at)
                SELECT 'u' || i, 'u' || i || '@example.com', '$2a$11$' || hex(randomblob(26)), 0, 0 FROM n
                """)
        }
        let scanned = try await db.pool.read { c in
            _ = try c.queryOne("SELECT COUNT(*) FROM users WHERE password_hash LIKE '$2_$%'", []) { $0.int(0) }
            let cached = c.cachedBytes
            c.releaseCachedPages()
            return (cached, c.cachedBytes)
        }
        #expect(scanned.0 > 100_000)   // a scan that cached nothing would prove nothing
        #expect(scanned.1 < scanned.0 / 10)
        #expect(try await db.users.bcryptCostInUse() == 11)
        let after = try await db.pool.read { c in c.cachedBytes }
        #expect(after < scanned.0 / 10)
        await db.close()
    }

    @Test func errorsDoNotLeakSQLiteText() async throws {
        let db = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await db.migrate()
        try await db.signingKeys.insert(SigningKeyStoreTests.key("dup"))
        do {
            try await db.signingKeys.insert(SigningKeyStoreTests.key("dup"))
            Issue.record("expected conflict")
        } catch let error as StoreError {
            #expect(!"\(error)".localizedCaseInsensitiveContains("sqlite"))
            #expect(!"\(error)".contains("UNIQUE"))
            #expect(error.detail.contains("UNIQUE"))  // kept for logs
        }
        await db.close()
    }
}
