import Foundation
import GatehouseStore

/// Bulk import of accounts (`gatehouse user import`), on either backend.
struct SQLUserImportStore<Database: SQLDatabase>: UserImportStore {
    let database: Database

    func importBatch(_ batch: [ImportedUser], at now: Date,
                     merge: @escaping @Sendable (ImportedUser, ImportMatch) -> ImportMerge) async throws -> [ImportOutcome] {
        // One transaction: a thrown conflict rolls the whole batch back. The matches are read (and, on
        // PostgreSQL, locked) inside it, so the rules judge the accounts as they are when the rows are written.
        let (lock, planning) = (database.dialect.forUpdate, database.dialect.listPlanning)
        return try await database.transaction { db in
            let view = try planning.run(db, inTransaction: true) { try UserImportBatchView.read(batch, lock: lock, db) }
            var writer = UserImportBatchWriter(view: view, now: now)
            let outcomes = try batch.map { try writer.importRow($0, merge: merge, db) }
            try writer.flush(db)
            return outcomes
        }
    }

    func loadIntoEmpty(_ rows: [ImportedUser], at now: Date) async throws -> [ImportOutcome]? {
        guard UserImportBulkLoad.keysAreDistinct(rows) else { return nil }
        let rebuild = database.dialect.indexRebuild
        return try await database.transaction { db in try UserImportBulkLoad(rows: rows, now: now).write(db, rebuild) }
    }

    func importFinished() async throws {
        try await database.dialect.statistics.refresh(["users", "external_identities"], in: database)
    }

    func match(_ row: ImportedUser) async throws -> ImportMatch? {
        let found = try await matches([row])
        return try found[0].get()
    }

    func matches(_ rows: [ImportedUser]) async throws -> [Result<ImportMatch?, ImportRowConflict>] {
        let planning = database.dialect.listPlanning
        return try await database.read { db in
            let view = try planning.run(db, inTransaction: false) { try UserImportBatchView.read(rows, lock: "", db) }
            return rows.map { row in Result { () throws(ImportRowConflict) in try view.match(row) } }
        }
    }

    func find(productUserId: String) async throws -> User? {
        try await database.read { db in try db.queryOne(UserImportSQL.findByProductUserID, [productUserId], UserSQL.decode) }
    }

    func productUserId(userId: String) async throws -> String? {
        try await database.read { db in
            try db.queryOne("SELECT external_id FROM users WHERE id = ?", [userId]) { $0.optionalText(0) } ?? nil
        }
    }
}

private enum UserImportSQL {
    static let findByProductUserID = "SELECT \(UserSQL.columns) FROM users WHERE external_id = ?"
}
