import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// Migration 22 on PostgreSQL: `refresh_tokens_by_client` is gone (no statement read it; every rotation's
/// INSERT wrote an entry and its WAL record), the indexes the statements use remain.
@Suite("PostgreSQL refresh-token indexes", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresRefreshTokenIndexTests {
    @Test func aRotationMaintainsThePrimaryKeyAndThreeIndexes() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            await db.close()
            let names = try await RawPostgres.execute(url: schema.baseURL, """
                SELECT indexname FROM pg_indexes WHERE schemaname = '\(schema.name)' AND tablename = 'refresh_tokens'
                ORDER BY indexname
                """)
            #expect(names.map { $0[0] ?? "" } == [
                "refresh_tokens_by_expiry", "refresh_tokens_by_family", "refresh_tokens_by_user_created",
                "refresh_tokens_pkey",
            ])
        }
    }
}
