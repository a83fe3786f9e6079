import Foundation
import GatehouseStore

/// Pending upstream revocations, on either backend. Deliberately without a reference to `users`:
/// the revocation of a deleted account's provider token must survive the account.
struct SQLPendingRevocationStore<Database: SQLDatabase>: PendingRevocationStore {
    let database: Database
    private let claimSQL: String

    init(database: Database) {
        self.database = database
        // One statement: on PostgreSQL rows locked by a concurrent claim are skipped, never handed
        // out twice; on SQLite the single writer already keeps claims apart.
        claimSQL = """
            UPDATE pending_revocations SET next_attempt_at = ?
            WHERE id IN (SELECT id FROM pending_revocations WHERE next_attempt_at <= ?
                         ORDER BY created_at, id LIMIT ?\(database.dialect.forUpdateSkipLocked))
            RETURNING \(PendingRevocationSQL.columns)
            """
    }

    func enqueue(_ revocation: PendingRevocation) async throws {
        _ = try await database.write { db in
            try db.run(PendingRevocationSQL.insert, [
                revocation.id, revocation.provider, revocation.sealedToken, revocation.tokenTypeHint,
                revocation.attempts, revocation.nextAttemptAt, revocation.lastError, revocation.createdAt, revocation.clientID,
            ])
        }
    }

    func due(now: Date, limit: Int) async throws -> [PendingRevocation] {
        // Oldest = enqueued first, so a revocation that keeps failing cannot starve older ones.
        try await database.read { db in
            try db.query(PendingRevocationSQL.due, [now, max(limit, 0)], PendingRevocationSQL.decode)
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [PendingRevocation] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        let claimed = try await database.write { [claimSQL] db in
            try db.query(claimSQL, [until, now, max(limit, 0)], PendingRevocationSQL.decode)
        }
        // RETURNING promises no order.
        return claimed.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await database.write { db in
            try db.run("UPDATE pending_revocations SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                       [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "pending revocation \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await database.write { db in try db.run("DELETE FROM pending_revocations WHERE id = ?", [id]) } > 0
    }
}

private enum PendingRevocationColumn: Int32, SQLColumn {
    case id, provider, sealedToken, tokenTypeHint, attempts, nextAttemptAt, lastError, createdAt, clientId
}

private enum PendingRevocationSQL {
    static let columns = PendingRevocationColumn.list()
    static let insert = "INSERT INTO pending_revocations (\(columns)) VALUES (\(PendingRevocationColumn.placeholders))"
    static let due = """
        SELECT \(columns) FROM pending_revocations WHERE next_attempt_at <= ?
        ORDER BY created_at, id LIMIT ?
        """

    static func decode(_ row: some SQLRow) -> PendingRevocation {
        typealias C = PendingRevocationColumn
        return PendingRevocation(id: row.text(C.id), provider: row.text(C.provider), sealedToken: row.blob(C.sealedToken),
                                 tokenTypeHint: row.text(C.tokenTypeHint), clientID: row.optionalText(C.clientId),
                                 attempts: row.int(C.attempts), nextAttemptAt: row.date(C.nextAttemptAt),
                                 lastError: row.optionalText(C.lastError), createdAt: row.date(C.createdAt))
    }
}
