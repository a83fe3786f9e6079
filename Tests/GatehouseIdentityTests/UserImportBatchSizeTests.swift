import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// How an import's rows are cut into write transactions: `UserImporter.defaultBatchSize` unless the run (the
/// CLI's `--batch-size`) says otherwise.
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
        let report = try await importer.run(Self.rows(5_001), dryRun: false)
        #expect(report.created == 5_001 && report.errors.isEmpty)
        #expect(imports.batchSizes.withLock { $0 } == [5_000, 1])
        #expect(try await database.users.count() == 5_001)
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
