import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// Migration 41 where `pg_trgm` may not be installed: the migration goes on without the index, the search
/// still answers, and the statements docs/admin-api.md gives add the index afterwards.
@Suite("PostgreSQL email search index", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresEmailSearchIndexTests {
    @Test func withoutTheRightToInstallPgTrgmTheMigrationGoesOnAndTheDocumentedStatementsAddTheIndex() async throws {
        let base = try PostgresTestCluster.requireURL()
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let name = "gh_notrgm_\(suffix)"
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        components.query = nil
        let owner = try #require(components.string)  // the new database, as the cluster's superuser
        let inSchema = owner + "?options=-c%20search_path%3Dapp"
        // A database of its own, where pg_trgm is not installed, and a role that owns the schema but may not
        // create extensions (no CREATE on the database).
        _ = try await RawPostgres.execute(url: base, "CREATE ROLE \(name) LOGIN")
        _ = try await RawPostgres.execute(url: base, "CREATE DATABASE \(name)")
        do {
            _ = try await RawPostgres.execute(url: owner, "CREATE SCHEMA app AUTHORIZATION \(name)")
            let asRole = inSchema + "&user=\(name)&pool_size=2"
            let db = try await PostgresDatabase.open(url: asRole)
            let report = try await db.migrate()
            #expect(report.applied.contains(41))
            try await db.users.create(.fixture("u1", email: "someone@example.test"))
            #expect(try await UserSearchStoreTests.ids(db, "one@ex") == ["u1"])
            await db.close()
            let indexQuery = "SELECT indexname FROM pg_indexes WHERE schemaname = 'app' AND indexname = 'users_by_email_trigrams'"
            #expect(try await RawPostgres.execute(url: owner, indexQuery).isEmpty)

            // docs/admin-api.md, "Search", run as a role allowed to install the extension:
            _ = try await RawPostgres.execute(url: inSchema, """
                CREATE EXTENSION IF NOT EXISTS pg_trgm;
                CREATE INDEX users_by_email_trigrams ON users USING gin (email gin_trgm_ops);
                """)
            #expect(try await RawPostgres.execute(url: owner, indexQuery).count == 1)
            let again = try await PostgresDatabase.open(url: asRole)
            try await again.users.create(.fixture("u2", email: "anyone@example.test"))
            #expect(try await UserSearchStoreTests.ids(again, "one@ex") == ["u1", "u2"])
            await again.close()
        } catch {
            Issue.record(error)
        }
        _ = try? await RawPostgres.execute(url: base, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        _ = try? await RawPostgres.execute(url: base, "DROP ROLE IF EXISTS \(name)")
    }
}
