import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// How an import's rows are cut into write transactions: `UserImporter.defaultBatchSize` unless the run (the
/// CLI's `--batch-size`) says otherwise, and a file of more than one batch into a database with no accounts
/// loaded whole (`UserImportStore.loadIntoEmpty`) unless the run gives a size.
@Suite struct UserImportBatchSizeTests {
    static func importer() async throws -> (UserImporter, ObservedUserImports, any GatehouseDatabase) {
        let database = try await SigningKeyRingTests.database()
        let imports = ObservedUserImports(database.userImports)
        return (UserImporter(imports: imports, audit: AuditTrail(store: database.auditLog), clock: .system), imports, database)
    }

    static func rows(_ count: Int) -> String {
        (1...count).map { #"{"email": "row\#($0)@example.com", "external_id": "\#($0)"}"# }.joined(separator: "\n")
    }

    @Test func theDefaultIsFiveThousandRowsATransaction() async throws {
        #expect(UserImporter.defaultBatchSize == 5_000)
        let (importer, imports, database) = try await Self.importer()
        // The database holds an account, so the rows go in batches.
        _ = try await importer.run(#"{"email": "first@example.com"}"#, dryRun: false)
        let report = try await importer.run(Self.rows(5_001), dryRun: false)
        #expect(report.created == 5_001 && report.errors.isEmpty)
        #expect(imports.batchSizes.withLock { $0 } == [1, 5_000, 1])
        #expect(imports.loads.withLock { $0 }.isEmpty)
        #expect(try await database.users.count() == 5_002)
    }

    @Test func aFileOfMoreThanOneBatchIntoAnEmptyDatabaseIsLoadedWhole() async throws {
        let (importer, imports, database) = try await Self.importer()
        let report = try await importer.run(Self.rows(5_001), dryRun: false)
        #expect(report.created == 5_001 && report.updated == 0 && report.errors.isEmpty)
        #expect(imports.loads.withLock { $0 } == [5_001] && imports.batchSizes.withLock { $0 }.isEmpty)
        #expect(try await database.users.count() == 5_001)
        #expect(try await database.userImports.find(productUserId: "4321")?.email == "row4321@example.com")
        // Every account has its audit entry, as from the batches.
        #expect(try await database.auditLog.count(userId: nil) == 5_001)
        let someone = try #require(try await database.users.find(email: "row17@example.com"))
        #expect(try await database.auditLog.list(userId: someone.id, limit: 5).map(\.event.type) == [AuditEventType.accountImported.rawValue])
        // Run again: the accounts exist now, and the same file updates them in batches.
        let again = try await importer.run(Self.rows(5_001), dryRun: false)
        #expect(again.updated == 5_001 && again.created == 0)
        #expect(imports.loads.withLock { $0 } == [5_001] && imports.batchSizes.withLock { $0 } == [5_000, 1])
    }

    @Test func aRunsOwnSizeKeepsTheBatchesOnAnEmptyDatabase() async throws {
        let (importer, imports, database) = try await Self.importer()
        let report = try await importer.run(Self.rows(5_001), dryRun: false, batchSize: 5_000)
        #expect(report.created == 5_001)
        #expect(imports.batchSizes.withLock { $0 } == [5_000, 1] && imports.loads.withLock { $0 }.isEmpty)
        #expect(try await database.users.count() == 5_001)
    }

    /// Its last row names the first row's address: it updates the account the first created, judged after it.
    @Test func aFileThatNamesAnAddressTwiceGoesInBatches() async throws {
        let (importer, imports, database) = try await Self.importer()
        let file = Self.rows(5_000) + "\n" + #"{"email": "row1@example.com", "name": "Second"}"#
        let report = try await importer.run(file, dryRun: false)
        #expect(report.created == 5_000 && report.updated == 1 && report.errors.isEmpty)
        #expect(imports.loads.withLock { $0 }.isEmpty && imports.batchSizes.withLock { $0 } == [5_000, 1])
        #expect(try await database.users.find(email: "row1@example.com")?.displayName == "Second")
    }

    @Test func aRunsOwnSizeWins() async throws {
        let (importer, imports, database) = try await Self.importer()
        let report = try await importer.run(Self.rows(5), dryRun: false, batchSize: 2)
        #expect(report.created == 5)
        #expect(imports.batchSizes.withLock { $0 } == [2, 2, 1])
        #expect(try await database.users.count() == 5)
        // Nothing below one row: a zero is taken as one, never as an endless loop.
        let again = try await importer.run(Self.rows(2), dryRun: false, batchSize: 0)
        #expect(again.updated == 2)
        #expect(imports.batchSizes.withLock { Array($0.suffix(2)) } == [1, 1])
    }

    @Test func theCommandLinesRangeHoldsTheDefault() {
        #expect(UserImporter.batchSizes == 1...50_000)
        #expect(UserImporter.batchSizes.contains(UserImporter.defaultBatchSize))
    }
}
