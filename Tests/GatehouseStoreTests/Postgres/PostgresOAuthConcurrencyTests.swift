import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// Two `PostgresDatabase` instances on one schema stand in for two server processes.
@Suite("PostgreSQL OAuth concurrency", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresOAuthConcurrencyTests {
    @Test func codesAndRefreshRotationsAreSingleUseAcrossInstances() async throws {
        try await withPostgresSchema { schema in
            let first = try await PostgresDatabase.open(url: schema.url())
            _ = try await first.migrate()
            let second = try await PostgresDatabase.open(url: schema.url())
            try await OAuthRaces.singleUseHoldsAcrossInstances(first, second, rounds: 15)
            await second.close()
            await first.close()
        }
    }

    @Test func familyRotationsAreSingleUseAcrossInstances() async throws {
        try await withPostgresSchema { schema in
            let first = try await PostgresDatabase.open(url: schema.url())
            _ = try await first.migrate()
            let second = try await PostgresDatabase.open(url: schema.url())
            try await OAuthRaces.familyRotationsHoldAcrossInstances(first, second, rounds: 15)
            await second.close()
            await first.close()
        }
    }
}
