import Foundation
import GatehouseStore

/// The outbound-delivery queue (webhooks, back-channel logout tokens), on either backend. No
/// reference to `users`.
struct SQLOutboundDeliveryStore<Database: SQLDatabase>: OutboundDeliveryStore {
    let database: Database
    private let claimSQL: String

    init(database: Database) {
        self.database = database
        // One statement: on PostgreSQL rows locked by a concurrent claim are skipped, never handed
        // out twice; on SQLite the single writer already keeps claims apart.
        claimSQL = """
            UPDATE outbound_deliveries SET next_attempt_at = ?
            WHERE id IN (SELECT id FROM outbound_deliveries WHERE next_attempt_at <= ?
                         ORDER BY created_at, id LIMIT ?\(database.dialect.forUpdateSkipLocked))
            RETURNING \(OutboundDeliverySQL.columns)
            """
    }

    func enqueue(_ deliveries: [OutboundDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        // One transaction: a change's deliveries are queued together or not at all.
        _ = try await database.transaction { db in
            for delivery in deliveries {
                try db.run(OutboundDeliverySQL.insert, [
                    delivery.id, delivery.kind.rawValue, delivery.destination, delivery.eventType, delivery.payload,
                    delivery.attempts, delivery.nextAttemptAt, delivery.lastError, delivery.createdAt,
                ])
            }
        }
    }

    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [OutboundDelivery] {
        let until = now.addingTimeInterval(max(claimFor, 0))
        let claimed = try await database.write { [claimSQL] db in
            try db.query(claimSQL, [until, now, max(limit, 0)], OutboundDeliverySQL.decode)
        }
        // RETURNING promises no order.
        return claimed.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        let changed = try await database.write { db in
            try db.run("UPDATE outbound_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                       [attempts, nextAttemptAt, lastError, id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "outbound delivery \(id)") }
    }

    func complete(id: String) async throws -> Bool {
        try await database.write { db in try db.run("DELETE FROM outbound_deliveries WHERE id = ?", [id]) } > 0
    }

    func list(limit: Int) async throws -> [OutboundDelivery] {
        try await database.read { db in try db.query(OutboundDeliverySQL.list, [max(limit, 0)], OutboundDeliverySQL.decode) }
    }
}

private enum OutboundDeliveryColumn: Int32, SQLColumn {
    case id, kind, destination, eventType, payload, attempts, nextAttemptAt, lastError, createdAt
}

private enum OutboundDeliverySQL {
    static let columns = OutboundDeliveryColumn.list()
    static let insert = "INSERT INTO outbound_deliveries (\(columns)) VALUES (\(OutboundDeliveryColumn.placeholders))"
    static let list = "SELECT \(columns) FROM outbound_deliveries ORDER BY created_at, id LIMIT ?"

    static func decode(_ row: some SQLRow) -> OutboundDelivery {
        typealias C = OutboundDeliveryColumn
        return OutboundDelivery(
            id: row.text(C.id), kind: OutboundDelivery.Kind(rawValue: row.text(C.kind)) ?? .webhook,
            destination: row.text(C.destination), eventType: row.text(C.eventType), payload: row.text(C.payload),
            attempts: row.int(C.attempts), nextAttemptAt: row.date(C.nextAttemptAt), lastError: row.optionalText(C.lastError),
            createdAt: row.date(C.createdAt))
    }
}
