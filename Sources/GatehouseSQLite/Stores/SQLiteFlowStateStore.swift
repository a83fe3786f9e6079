import Foundation
import GatehouseStore

struct SQLiteFlowStateStore: FlowStateStore {
    let pool: SQLiteConnectionPool

    private static let columns = "state_hash, created_at, expires_at, payload"

    func create(_ flow: FlowState) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO flow_states (\(Self.columns)) VALUES (?, ?, ?, ?)",
                       [flow.stateHash, flow.createdAt, flow.expiresAt, flow.payload])
        }
    }

    func consume(stateHash: TokenHash, now: Date) async throws -> FlowState? {
        // Deleting on use (rather than marking) keeps the table to flows in progress.
        try await pool.write { db in
            try db.queryOne("""
                DELETE FROM flow_states WHERE state_hash = ? AND expires_at > ? RETURNING \(Self.columns)
                """, [stateHash, now]) { row in
                FlowState(stateHash: TokenHash(row.blob(0)), createdAt: row.date(1), expiresAt: row.date(2),
                          payload: row.text(3))
            }
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.run("""
                DELETE FROM flow_states WHERE state_hash IN (
                    SELECT state_hash FROM flow_states WHERE expires_at <= ? LIMIT ?)
                """, [now, max(limit, 0)])
        }
    }
}
