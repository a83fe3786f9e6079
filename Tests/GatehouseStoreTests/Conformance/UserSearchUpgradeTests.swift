import Foundation
import GatehousePostgres
import GatehouseSQLite
import GatehouseSQLStore
import GatehouseStore
import Testing

/// Migration 41 on a database that already has accounts (schema 40, as an older build left it): the
/// existing emails are indexed, and accounts written afterwards join them.
@Suite("User search upgrade")
struct UserSearchUpgradeTests {
    /// The schema at version 40, built by the same migrations an older build ran, and three accounts.
    static func schema40(_ types: SQLSchemaTypes) -> String {
        var script = StoreMigrations.bookkeeping(types) + ";\n"
        for migration in StoreMigrations.all(types) where migration.version <= 40 {
            script += migration.sql + "\nINSERT INTO gatehouse_schema_migrations (version, name, applied_at) VALUES ("
                + "\(migration.version), '\(migration.name)', 0);\n"
        }
        for (number, email) in ["old_one@before.test", "old%two@before.test", "third@elsewhere.test"].enumerated() {
            script += "INSERT INTO users (id, email, created_at, updated_at) VALUES ('old\(number)', '\(email)', \(1_767_225_600_000 + number), 0);\n"
        }
        return script
    }

    static func expectUpgradedSearch(_ db: any GatehouseDatabase) async throws {
        #expect(try await UserSearchStoreTests.ids(db, "@before.test") == ["old0", "old1"])
        #expect(try await UserSearchStoreTests.ids(db, "d%two", limit: 1) == ["old1"])
        try await db.users.create(.fixture("new", email: "new@before.test", created: 10))
        #expect(try await UserSearchStoreTests.ids(db, "before.test", limit: 2) == ["old0", "old1", "new"])
        #expect(try await db.users.delete(id: "old0"))
        #expect(try await UserSearchStoreTests.ids(db, "old_one") == [])
    }

    @Test func sqliteIndexesTheAccountsItFinds() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("old.sqlite")
        await (try SQLiteDatabase.open(location: .file(path: path))).close()
        try RawSQLite.execute(path: path, Self.schema40(.sqlite))
        let db = try await SQLiteDatabase.open(location: .file(path: path))
        let report = try await db.migrate()
        #expect(report.fromVersion == 40 && report.applied.contains(41))
        try await Self.expectUpgradedSearch(db)
        await db.close()
    }

    @Test(.enabled(if: PostgresTestCluster.isEnabled))
    func postgresIndexesTheAccountsItFinds() async throws {
        try await withPostgresSchema { schema in
            _ = try await RawPostgres.execute(url: schema.baseURL, "SET search_path = \(schema.name);\n" + Self.schema40(.postgres))
            let db = try await PostgresDatabase.open(url: schema.url())
            let report = try await db.migrate()
            #expect(report.fromVersion == 40 && report.applied.contains(41))
            try await Self.expectUpgradedSearch(db)
            await db.close()
            let indexes = try await RawPostgres.execute(url: schema.baseURL, """
                SELECT indexdef FROM pg_indexes WHERE schemaname = '\(schema.name)' AND indexname = 'users_by_email_trigrams'
                """)
            #expect(indexes.first?.first??.contains("gin_trgm_ops") == true, "the pg_trgm index exists: \(indexes)")
        }
    }
}
