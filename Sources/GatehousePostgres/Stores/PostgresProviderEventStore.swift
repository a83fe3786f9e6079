import Foundation
import GatehouseStore

struct PostgresProviderEventStore: ProviderEventStore {
    let pool: PostgresConnectionPool

    func record(_ event: ProviderEvent) async throws -> ProviderEventOutcome {
        try await pool.transaction { db in
            // The primary key decides between concurrent copies of one event: exactly one inserts.
            let inserted = try db.run("""
                INSERT INTO provider_events (provider, event_id, subject, type, event_time, received_at)
                VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (provider, event_id) DO NOTHING
                """, [event.provider, event.eventID, event.subject, event.type, event.eventTime, event.receivedAt])
            guard inserted > 0 else { return .duplicate }
            let newer = try db.queryOne("""
                SELECT 1 FROM provider_events WHERE provider = $1 AND subject = $2 AND event_time > $3 LIMIT 1
                """, [event.provider, event.subject, event.eventTime]) { _ in true } ?? false
            return newer ? .superseded : .apply
        }
    }

    func purge(receivedBefore before: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM provider_events WHERE (provider, event_id) IN (
                    SELECT provider, event_id FROM provider_events WHERE received_at < $1 LIMIT $2)
                """, [before, max(limit, 0)])
        }
    }
}
