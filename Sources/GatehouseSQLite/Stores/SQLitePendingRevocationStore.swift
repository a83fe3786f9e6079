import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Pending upstream revocations. Deliberately without a reference to `users`: the revocation
/// of a deleted account's provider token must survive the account.
struct SQLitePendingRevocationStore: PendingRevocationStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        id, provider, sealed_token, token_type_hint, attempts, next_attempt_at, last_error, created_at, client_id
        """

    func enqueue(_ revocation: PendingRevocation) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO pending_revocations (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                revocation.id, revocation.provider, revocation.sealedToken, revocation.tokenTypeHint,
                revocation.attempts, revocation.nextAttemptAt, revocation.lastError, revocation.createdAt, revocation.clientID,
            ])
        }
    }

    func due(now: Date, limit: Int) async throws -> [PendingRevocation] {
        // Oldest = enqueued first, so a revocation that keeps failing cannot starve older ones.
        try await pool.read { db in
            try db.query("""
                SELECT \(Self.columns) FROM pending_revocations WHERE next_attempt_at <= ?
                ORDER BY created_at, id LIMIT ?
                """, [now, max(limit, 0)], Self.decode)
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [PendingRevocation] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        // Select and move in one write transaction: SQLite has one writer, so no other claim interleaves.
        return try await pool.write { db in
            let due = try db.query("""
                SELECT \(Self.columns) FROM pending_revocations WHERE next_attempt_at <= ?
                ORDER BY created_at, id LIMIT ?
                """, [now, max(limit, 0)], Self.decode)
            for revocation in due {
                _ = try db.run("UPDATE pending_revocations SET next_attempt_at = ? WHERE id = ?", [until, revocation.id])
            }
            return due.map { var claimed = $0; claimed.nextAttemptAt = until; return claimed }
        }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await pool.write { db in
            try db.run("UPDATE pending_revocations SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                       [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "pending revocation \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await pool.write { db in try db.run("DELETE FROM pending_revocations WHERE id = ?", [id]) } > 0
    }

    private static func decode(_ row: SQLiteRow) -> PendingRevocation {
        PendingRevocation(id: row.text(0), provider: row.text(1), sealedToken: row.blob(2), tokenTypeHint: row.text(3),
                          clientID: row.optionalText(8), attempts: row.int(4), nextAttemptAt: row.date(5),
                          lastError: row.optionalText(6),
                          createdAt: row.date(7))
    }
}
