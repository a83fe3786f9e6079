import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

/// A second `SQLiteDatabase` on the same file stands in for another process: its writer is
/// serialised with the first one's only by SQLite's file lock (BEGIN IMMEDIATE + busy_timeout).
@Suite("SQLite OAuth concurrency")
struct SQLiteOAuthConcurrencyTests {
    @Test func codesAndRefreshRotationsAreSingleUseAcrossInstances() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("oauth.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        _ = try await first.migrate()
        let second = try await SQLiteDatabase.open(url: url)
        try await OAuthRaces.singleUseHoldsAcrossInstances(first, second, rounds: 15)
        await second.close()
        await first.close()
    }

    @Test func familyRotationsAreSingleUseAcrossInstances() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("oauth.sqlite")
        let first = try await SQLiteDatabase.open(url: url)
        _ = try await first.migrate()
        let second = try await SQLiteDatabase.open(url: url)
        try await OAuthRaces.familyRotationsHoldAcrossInstances(first, second, rounds: 15)
        await second.close()
        await first.close()
    }
}
