import Foundation
import GatehouseStore

/// The mechanics both durable queues share (pending provider revocations, outbound deliveries):
/// claim the due rows for a while, reschedule a failed one, complete a done one. The table needs
/// `id`, `attempts`, `next_attempt_at`, `last_error` and `created_at`.
///
/// A claim is one statement: on PostgreSQL rows locked by a concurrent claim are skipped, never
/// handed out twice; on SQLite the single writer already keeps claims apart.
struct SQLRetryQueue: Sendable {
    let table: String
    /// What `notFound` calls a row ("pending revocation", "outbound delivery").
    let noun: String
    private let claimSQL: String
    private let rescheduleSQL: String
    private let completeSQL: String

    /// - Parameter columns: the SELECT list the claimed rows come back with (`RETURNING`).
    init(table: String, noun: String, columns: String, dialect: SQLDialect) {
        self.table = table; self.noun = noun
        claimSQL = """
            UPDATE \(table) SET next_attempt_at = ?
            WHERE id IN (SELECT id FROM \(table) WHERE next_attempt_at <= ?
                         ORDER BY created_at, id LIMIT ?\(dialect.forUpdateSkipLocked))
            RETURNING \(columns)
            """
        rescheduleSQL = "UPDATE \(table) SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?"
        completeSQL = "DELETE FROM \(table) WHERE id = ?"
    }

    /// Hands out up to `limit` due rows and keeps them from other claims until `now + claimFor`,
    /// oldest first (`RETURNING` promises no order, so they are sorted here).
    func claimDue<Row: Sendable>(on database: some SQLDatabase, now: Date, claimFor: TimeInterval, limit: Int,
                       decode: @escaping @Sendable (any SQLRow) -> Row, order: (Row, Row) -> Bool) async throws -> [Row] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        let claimed = try await database.write { [claimSQL] db in
            try db.query(claimSQL, [until, now, max(limit, 0)]) { decode($0) }
        }
        return claimed.sorted(by: order)
    }

    func reschedule(on database: some SQLDatabase, id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await database.write { [rescheduleSQL] db in
            try db.run(rescheduleSQL, [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "\(noun) \(id)") }
    }

    func complete(on database: some SQLDatabase, id: String) async throws -> Bool {
        try await database.write { [completeSQL] db in try db.run(completeSQL, [id]) } > 0
    }
}
