import Foundation
import GatehouseStore

/// Upstream events already processed, on either backend.
struct SQLProviderEventStore<Database: SQLDatabase>: ProviderEventStore {
    let database: Database

    func record(_ event: ProviderEvent) async throws -> ProviderEventOutcome {
        try await database.transaction { db in
            // The primary key decides between concurrent copies of one event: exactly one inserts.
            let inserted = try db.run("""
                INSERT INTO provider_events (provider, event_id, subject, type, event_time, received_at)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (provider, event_id) DO NOTHING
                """, [event.provider, event.eventID, event.subject, event.type, event.eventTime, event.receivedAt])
            guard inserted > 0 else { return .duplicate }
            let newer = try db.queryOne("""
                SELECT 1 FROM provider_events WHERE provider = ? AND subject = ? AND event_time > ? LIMIT 1
                """, [event.provider, event.subject, event.eventTime]) { _ in true } ?? false
            return newer ? .superseded : .apply
        }
    }

    func purge(receivedBefore before: Date, limit: Int) async throws -> Int {
        try await providerEventPurge.run(on: database, cutoff: before, limit: limit)
    }
}

private let providerEventPurge = SQLBatchPurge(table: "provider_events", key: "(provider, event_id)",
                                               condition: "received_at < ?")
