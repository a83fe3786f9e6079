import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

@Suite("SQLite migrations")
struct SQLiteMigrationTests {
    @Test func migrationsAreIdempotent() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let db = try await SQLiteDatabase.open(location: .file(path: folder.appending("m.sqlite")))
        #expect(try await db.schemaVersion() == 0)
        let first = try await db.migrate()
        #expect(first.fromVersion == 0)
        #expect(first.toVersion == StoreSchema.latestVersion)
        #expect(first.applied == StoreSchema.versions.map(\.number))
        let second = try await db.migrate()
        #expect(second.applied.isEmpty)
        #expect(second.fromVersion == second.toVersion)
        try await db.requireCurrentSchema()
        await db.close()
    }

    @Test func sqliteMigrationsMatchTheSharedCatalogue() {
        #expect(SQLiteDatabase.supportedSchemaVersion == StoreSchema.latestVersion)
    }

    @Test func refusesNewerSchema() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("new.sqlite")
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        _ = try await db.migrate()
        await db.close()

        // Simulate a newer build having migrated this file.
        try RawSQLite.execute(path: path, """
            INSERT INTO gatehouse_schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)
            """)

        let reopened = try await SQLiteDatabase.open(location: .file(path: path))
        do {
            _ = try await reopened.migrate()
            Issue.record("migrate must refuse a newer schema")
        } catch StoreError.schemaTooNew(let found, let supported) {
            #expect(found == 999)
            #expect(supported == StoreSchema.latestVersion)
        }
        await expectStoreError(.schemaTooNew) { try await reopened.requireCurrentSchema() }
        await reopened.close()
    }

    @Test func unmigratedDatabaseIsOutdated() async throws {
        let db = try await SQLiteDatabase.open(url: "sqlite::memory:")
        await expectStoreError(.schemaOutdated) { try await db.requireCurrentSchema() }
        await db.close()
    }
}
