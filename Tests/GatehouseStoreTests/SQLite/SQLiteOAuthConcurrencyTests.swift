import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

/// A second `SQLiteDatabase` on the same file stands in for another process: its writer is
/// serialised with the first one's only by SQLite's file lock (BEGIN IMMEDIATE + busy_timeout).
@Suite("SQLite OAuth concurrency")
struct SQLiteOAuthConcurrencyTests {
    @Test func codesAndRefreshRotationsAreSingleUseAcrossInstances() async throws {
        try await withTwoInstances { try await OAuthRaces.singleUseHoldsAcrossInstances($0, $1, rounds: 15) }
    }

    @Test func familyRotationsAreSingleUseAcrossInstances() async throws {
        try await withTwoInstances { try await OAuthRaces.familyRotationsHoldAcrossInstances($0, $1, rounds: 15) }
    }

    /// Two databases over one migrated file, closed after the race.
    private func withTwoInstances(_ race: (SQLiteDatabase, SQLiteDatabase) async throws -> Void) async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("oauth.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        _ = try await first.migrate()
        let second = try await SQLiteDatabase.open(url: url)
        try await race(first, second)
        await second.close()
        await first.close()
    }
}
