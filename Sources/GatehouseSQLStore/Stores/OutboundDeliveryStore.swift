import Foundation
import GatehouseStore

/// The outbound-delivery queue (webhooks, back-channel logout tokens), on either backend. No
/// reference to `users`.
struct SQLOutboundDeliveryStore<Database: SQLDatabase>: OutboundDeliveryStore {
    let database: Database
    private let queue: SQLRetryQueue

    init(database: Database) {
        self.database = database
        queue = SQLRetryQueue(table: "outbound_deliveries", noun: "outbound delivery", columns: OutboundDeliverySQL.columns, dialect: database.dialect)
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
        try await queue.claimDue(on: database, now: now, claimFor: claimFor, limit: limit,
                                 decode: { OutboundDeliverySQL.decode($0) }, order: { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) })
    }

    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws {
        try await queue.reschedule(on: database, id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
    }

    func complete(id: String) async throws -> Bool {
        try await queue.complete(on: database, id: id)
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
