import Foundation
import GatehouseStore

/// Leases for shared background work, on either backend.
struct SQLLeaseStore<Database: SQLDatabase>: LeaseStore {
    let database: Database

    func acquire(name: String, holder: String, ttl: TimeInterval, now: Date) async throws -> Bool {
        let expiresAt = now.addingTimeInterval(max(ttl, 0))
        // One upsert: inserts a free lease, or takes over an expired one, or renews our own; the
        // conflict update's WHERE leaves someone else's live lease alone, and RETURNING yields a
        // row only when this holder now has it. Concurrent takers serialise on the row (or on the
        // primary key for a first insert), so only one of them can win.
        let taken = try await database.write { db in
            try db.queryOne("""
                INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
                RETURNING holder
                """, [name, holder, expiresAt, now]) { $0.text(0) }
        }
        return taken == holder
    }

    func release(name: String, holder: String) async throws {
        _ = try await database.write { db in
            try db.run("DELETE FROM leases WHERE name = ? AND holder = ?", [name, holder])
        }
    }
}
