import Foundation
import GatehouseStore

struct SQLiteProviderEventStore: ProviderEventStore {
    let pool: SQLiteConnectionPool

    func record(_ event: ProviderEvent) async throws -> ProviderEventOutcome {
        try await pool.write { db in
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
        try await pool.write { db in
            try db.run("""
                DELETE FROM provider_events WHERE (provider, event_id) IN (
                    SELECT provider, event_id FROM provider_events WHERE received_at < ? LIMIT ?)
                """, [before, max(limit, 0)])
        }
    }
}
