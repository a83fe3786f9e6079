import Foundation
import GatehouseStore

struct PostgresFlowStateStore: FlowStateStore {
    let pool: PostgresConnectionPool

    private static let columns = "state_hash, created_at, expires_at, payload"

    func create(_ flow: FlowState) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO flow_states (\(Self.columns)) VALUES ($1, $2, $3, $4)",
                       [flow.stateHash, flow.createdAt, flow.expiresAt, flow.payload])
        }
    }

    func consume(stateHash: TokenHash, now: Date) async throws -> FlowState? {
        // Deleting on use keeps the table to flows in progress; a concurrent second DELETE waits
        // for the first and then finds no row, so exactly one caller gets the flow.
        try await pool.withConnection { db in
            try db.queryOne("""
                DELETE FROM flow_states WHERE state_hash = $1 AND expires_at > $2 RETURNING \(Self.columns)
                """, [stateHash, now]) { row in
                FlowState(stateHash: TokenHash(row.blob(0)), createdAt: row.date(1), expiresAt: row.date(2),
                          payload: row.text(3))
            }
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM flow_states WHERE state_hash IN (
                    SELECT state_hash FROM flow_states WHERE expires_at <= $1 LIMIT $2)
                """, [now, max(limit, 0)])
        }
    }
}
