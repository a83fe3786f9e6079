import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// The importer tells the store when an import's batches are all written (PostgreSQL then analyzes them), once,
/// and only when it wrote something.
@Suite struct UserImportFinishTests {
    static func importer() async throws -> (UserImporter, ObservedUserImports, any GatehouseDatabase) {
        let database = try await SigningKeyRingTests.database()
        let imports = ObservedUserImports(database.userImports)
        return (UserImporter(imports: imports, audit: AuditTrail(store: database.auditLog), clock: .system, batchSize: 1),
                imports, database)
    }

    static let rows = """
        {"email": "a@example.com", "password_hash": "\(UserImporterTests.bcrypt)"}
        {"email": "b@example.com", "password_hash": "\(UserImporterTests.bcrypt)"}
        """

    @Test func onceAfterTheLastBatch() async throws {
        let (importer, imports, database) = try await Self.importer()
        let report = try await importer.run(Self.rows, dryRun: false, batchSize: 1)
        #expect(report.created == 2 && report.errors.isEmpty)
        #expect(try await database.users.count() == 2)
        #expect(imports.batchSizes.withLock { $0 } == [1, 1])
        #expect(imports.finished.withLock { $0 } == 1, "two batches, one end")
    }

    @Test func onceAfterALoadIntoAnEmptyDatabase() async throws {
        let (importer, imports, database) = try await Self.importer()
        let report = try await importer.run(Self.rows, dryRun: false)
        #expect(report.created == 2 && report.errors.isEmpty)
        #expect(try await database.users.count() == 2)
        #expect(imports.loads.withLock { $0 } == [2] && imports.batchSizes.withLock { $0 }.isEmpty)
        #expect(imports.finished.withLock { $0 } == 1)
    }

    @Test func notForADryRunOrRefusedRows() async throws {
        let (importer, imports, _) = try await Self.importer()
        _ = try await importer.run(Self.rows, dryRun: true)
        let refused = try await importer.run(#"{"email": "no-at-sign"}"#, dryRun: false)
        #expect(refused.errors.count == 1)
        #expect(imports.finished.withLock { $0 } == 0)
    }
}
