import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

@Suite("PostgreSQL migrations", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresMigrationTests {
    @Test func migrationsAreIdempotent() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            #expect(try await db.schemaVersion() == 0)
            await expectStoreError(.schemaOutdated) { try await db.requireCurrentSchema() }
            let first = try await db.migrate()
            #expect(first == MigrationReport(fromVersion: 0, toVersion: StoreSchema.latestVersion,
                                             applied: StoreSchema.versions.map(\.number)))
            let second = try await db.migrate()
            #expect(second == MigrationReport(fromVersion: StoreSchema.latestVersion, toVersion: StoreSchema.latestVersion,
                                              applied: []))
            try await db.requireCurrentSchema()
            let names = try await RawPostgres.execute(url: schema.baseURL, """
                SELECT version, name FROM \(schema.name).gatehouse_schema_migrations ORDER BY version
                """)
            #expect(names.map { $0[1] ?? "" } == StoreSchema.versions.map(\.name))
            await db.close()
        }
    }

    @Test func postgresMigrationsMatchTheSharedCatalogue() {
        #expect(PostgresDatabase.supportedSchemaVersion == StoreSchema.latestVersion)
    }

    @Test func refusesNewerSchema() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            // Simulate a newer build having migrated this database.
            try await RawPostgres.execute(url: schema.baseURL, """
                INSERT INTO \(schema.name).gatehouse_schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)
                """)
            do {
                _ = try await db.migrate()
                Issue.record("migrate must refuse a newer schema")
            } catch StoreError.schemaTooNew(let found, let supported) {
                #expect(found == 999)
                #expect(supported == StoreSchema.latestVersion)
            }
            await expectStoreError(.schemaTooNew) { try await db.requireCurrentSchema() }
            await db.close()
        }
    }

    /// Several processes starting at once: the advisory lock queues them and each version is
    /// applied exactly once, whoever applies it.
    @Test func concurrentMigrationsApplyEachVersionOnce() async throws {
        for _ in 0..<3 {
            try await withPostgresSchema { schema in
                var databases: [PostgresDatabase] = []
                for _ in 0..<4 { databases.append(try await PostgresDatabase.open(url: schema.url(poolSize: 1))) }
                let reports = try await withThrowingTaskGroup(of: MigrationReport.self) { group in
                    for db in databases { group.addTask { try await db.migrate() } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(reports.flatMap(\.applied).sorted() == StoreSchema.versions.map(\.number))
                #expect(reports.allSatisfy { $0.toVersion == StoreSchema.latestVersion })
                let rows = try await RawPostgres.execute(url: schema.baseURL,
                                                         "SELECT COUNT(*) FROM \(schema.name).gatehouse_schema_migrations")
                #expect(rows.first?.first == "\(StoreSchema.versions.count)")
                for db in databases { await db.close() }
            }
        }
    }
}
