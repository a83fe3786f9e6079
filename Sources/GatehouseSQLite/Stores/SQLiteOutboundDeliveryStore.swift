import Foundation
import GatehouseStore

/// The outbound-delivery queue (webhooks, back-channel logout tokens). No reference to `users`.
struct SQLiteOutboundDeliveryStore: OutboundDeliveryStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        id, kind, destination, event_type, payload, attempts, next_attempt_at, last_error, created_at
        """

    func enqueue(_ deliveries: [OutboundDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        // One write transaction: a change's deliveries are queued together or not at all.
        _ = try await pool.write { db in
            for delivery in deliveries {
                try db.run("INSERT INTO outbound_deliveries (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                    delivery.id, delivery.kind.rawValue, delivery.destination, delivery.eventType, delivery.payload,
                    delivery.attempts, delivery.nextAttemptAt, delivery.lastError, delivery.createdAt,
                ])
            }
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [OutboundDelivery] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        // Select and move in one write transaction: SQLite has one writer, so no other claim interleaves.
        return try await pool.write { db in
            let due = try db.query("""
                SELECT \(Self.columns) FROM outbound_deliveries WHERE next_attempt_at <= ?
                ORDER BY created_at, id LIMIT ?
                """, [now, max(limit, 0)], Self.decode)
            for delivery in due {
                _ = try db.run("UPDATE outbound_deliveries SET next_attempt_at = ? WHERE id = ?", [until, delivery.id])
            }
            return due.map { var claimed = $0; claimed.nextAttemptAt = until; return claimed }
        }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await pool.write { db in
            try db.run("UPDATE outbound_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                       [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "outbound delivery \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await pool.write { db in try db.run("DELETE FROM outbound_deliveries WHERE id = ?", [id]) } > 0
    }

    func list(limit: Int) async throws -> [OutboundDelivery] {
        try await pool.read { db in
            try db.query("SELECT \(Self.columns) FROM outbound_deliveries ORDER BY created_at, id LIMIT ?", [max(limit, 0)], Self.decode)
        }
    }

    private static func decode(_ row: SQLiteRow) -> OutboundDelivery {
        OutboundDelivery(id: row.text(0), kind: OutboundDelivery.Kind(rawValue: row.text(1)) ?? .webhook, destination: row.text(2),
                         eventType: row.text(3), payload: row.text(4), attempts: row.int(5), nextAttemptAt: row.date(6),
                         lastError: row.optionalText(7), createdAt: row.date(8))
    }
}
