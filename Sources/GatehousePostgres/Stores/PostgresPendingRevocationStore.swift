import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Pending upstream revocations. Deliberately without a reference to `users`: the revocation
/// of a deleted account's provider token must survive the account.
struct PostgresPendingRevocationStore: PendingRevocationStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        id, provider, sealed_token, token_type_hint, attempts, next_attempt_at, last_error, created_at, client_id
        """

    func enqueue(_ revocation: PendingRevocation) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO pending_revocations (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
                revocation.id, revocation.provider, revocation.sealedToken, revocation.tokenTypeHint,
                revocation.attempts, revocation.nextAttemptAt, revocation.lastError, revocation.createdAt, revocation.clientID,
            ])
        }
    }

    func due(now: Date, limit: Int) async throws -> [PendingRevocation] {
        // Oldest = enqueued first, so a revocation that keeps failing cannot starve older ones.
        try await pool.withConnection { db in
            try db.query("""
                SELECT \(Self.columns) FROM pending_revocations WHERE next_attempt_at <= $1
                ORDER BY created_at, id LIMIT $2
                """, [now, max(limit, 0)], Self.decode)
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [PendingRevocation] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        // One statement: rows locked by a concurrent claim are skipped, never handed out twice.
        let claimed = try await pool.withConnection { db in
            try db.query("""
                UPDATE pending_revocations SET next_attempt_at = $1
                WHERE id IN (SELECT id FROM pending_revocations WHERE next_attempt_at <= $2
                             ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.columns)
                """, [until, now, max(limit, 0)], Self.decode)
        }
        return claimed.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await pool.withConnection { db in
            try db.run("""
                UPDATE pending_revocations SET attempts = $1, next_attempt_at = $2, last_error = $3 WHERE id = $4
                """, [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "pending revocation \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await pool.withConnection { db in try db.run("DELETE FROM pending_revocations WHERE id = $1", [id]) } > 0
    }

    private static func decode(_ row: PostgresRow) -> PendingRevocation {
        PendingRevocation(id: row.text(0), provider: row.text(1), sealedToken: row.blob(2), tokenTypeHint: row.text(3),
                          clientID: row.optionalText(8), attempts: row.int(4), nextAttemptAt: row.date(5),
                          lastError: row.optionalText(6),
                          createdAt: row.date(7))
    }
}
