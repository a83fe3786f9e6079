import Foundation
import GatehouseStore
import Synchronization

/// The database's import store, recording what the importer asks of it: the size of every batch, every load
/// into an empty database, and how often it said the import was finished.
final class ObservedUserImports: UserImportStore {
    let base: any UserImportStore
    let batchSizes = Mutex<[Int]>([])
    /// The row counts of the whole-file loads into an empty database that wrote.
    let loads = Mutex<[Int]>([])
    let finished = Mutex(0)
    init(_ base: any UserImportStore) { self.base = base }

    func importBatch(_ batch: [ImportedUser], at: Date,
                     merge: @escaping @Sendable (ImportedUser, ImportMatch) -> ImportMerge) async throws -> [ImportOutcome] {
        batchSizes.withLock { $0.append(batch.count) }
        return try await base.importBatch(batch, at: at, merge: merge)
    }
    func loadIntoEmpty(_ rows: [ImportedUser], at: Date) async throws -> [ImportOutcome]? {
        let outcomes = try await base.loadIntoEmpty(rows, at: at)
        if outcomes != nil { loads.withLock { $0.append(rows.count) } }
        return outcomes
    }
    func importFinished() async throws {
        finished.withLock { $0 += 1 }
        try await base.importFinished()
    }
    func match(_ row: ImportedUser) async throws -> ImportMatch? { try await base.match(row) }
    func matches(_ rows: [ImportedUser]) async throws -> [Result<ImportMatch?, ImportRowConflict>] { try await base.matches(rows) }
    func find(productUserId: String) async throws -> User? { try await base.find(productUserId: productUserId) }
    func productUserId(userId: String) async throws -> String? { try await base.productUserId(userId: userId) }
}
