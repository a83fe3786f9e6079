import Foundation
import GatehouseStore

/// Upstream OAuth flow state, on either backend.
struct SQLFlowStateStore<Database: SQLDatabase>: FlowStateStore {
    let database: Database

    func create(_ flow: FlowState) async throws {
        _ = try await database.write { db in
            try db.run("INSERT INTO flow_states (\(FlowStateSQL.columns)) VALUES (\(FlowStateColumn.placeholders))",
                       [flow.stateHash, flow.createdAt, flow.expiresAt, flow.payload])
        }
    }

    func consume(stateHash: TokenHash, now: Date) async throws -> FlowState? {
        // Deleting on use keeps the table to flows in progress; a concurrent second DELETE finds
        // no row (SQLite: after the single writer; PostgreSQL: after waiting for the first), so
        // exactly one caller gets the flow.
        try await database.write { db in
            try db.queryOne(FlowStateSQL.consume, [stateHash, now]) { row in
                FlowState(stateHash: row.tokenHash(FlowStateColumn.stateHash), createdAt: row.date(FlowStateColumn.createdAt),
                          expiresAt: row.date(FlowStateColumn.expiresAt), payload: row.text(FlowStateColumn.payload))
            }
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await flowStatePurge.run(on: database, cutoff: now, limit: limit)
    }
}

private enum FlowStateColumn: Int32, SQLColumn {
    case stateHash, createdAt, expiresAt, payload
}

private enum FlowStateSQL {
    static let columns = FlowStateColumn.list()
    static let consume = "DELETE FROM flow_states WHERE state_hash = ? AND expires_at > ? RETURNING \(columns)"
}

private let flowStatePurge = SQLBatchPurge(table: "flow_states", key: "state_hash", condition: "expires_at <= ?")
