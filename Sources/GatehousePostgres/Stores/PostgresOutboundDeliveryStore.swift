import Foundation
import GatehouseStore

/// The outbound-delivery queue (webhooks, back-channel logout tokens). No reference to `users`.
struct PostgresOutboundDeliveryStore: OutboundDeliveryStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        id, kind, destination, event_type, payload, attempts, next_attempt_at, last_error, created_at
        """

    func enqueue(_ deliveries: [OutboundDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        // One transaction: a change's deliveries are queued together or not at all.
        _ = try await pool.transaction { db in
            for delivery in deliveries {
                try db.run("INSERT INTO outbound_deliveries (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
                    delivery.id, delivery.kind.rawValue, delivery.destination, delivery.eventType, delivery.payload,
                    delivery.attempts, delivery.nextAttemptAt, delivery.lastError, delivery.createdAt,
                ])
            }
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [OutboundDelivery] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        // One statement: rows locked by a concurrent claim are skipped, never handed out twice.
        let claimed = try await pool.withConnection { db in
            try db.query("""
                UPDATE outbound_deliveries SET next_attempt_at = $1
                WHERE id IN (SELECT id FROM outbound_deliveries WHERE next_attempt_at <= $2
                             ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.columns)
                """, [until, now, max(limit, 0)], Self.decode)
        }
        return claimed.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await pool.withConnection { db in
            try db.run("""
                UPDATE outbound_deliveries SET attempts = $1, next_attempt_at = $2, last_error = $3 WHERE id = $4
                """, [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "outbound delivery \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await pool.withConnection { db in try db.run("DELETE FROM outbound_deliveries WHERE id = $1", [id]) } > 0
    }

    func list(limit: Int) async throws -> [OutboundDelivery] {
        try await pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM outbound_deliveries ORDER BY created_at, id LIMIT $1", [max(limit, 0)], Self.decode)
        }
    }

    private static func decode(_ row: PostgresRow) -> OutboundDelivery {
        OutboundDelivery(id: row.text(0), kind: OutboundDelivery.Kind(rawValue: row.text(1)) ?? .webhook, destination: row.text(2),
                         eventType: row.text(3), payload: row.text(4), attempts: row.int(5), nextAttemptAt: row.date(6),
                         lastError: row.optionalText(7), createdAt: row.date(8))
    }
}
