import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresAuditLogStore: AuditLogStore {
    let pool: PostgresConnectionPool

    func append(_ event: AuditEvent) async throws -> Int64 {
        let sequence = try await pool.withConnection { db in
            try db.queryOne("""
                INSERT INTO audit_log (occurred_at, user_id, event_type, ip, user_agent, details)
                VALUES ($1, $2, $3, $4, $5, $6) RETURNING sequence
                """, [event.occurredAt, event.userId, event.type, event.ip, event.userAgent, event.details]) {
                $0.int64(0)
            }
        }
        guard let sequence else { throw StoreError.failure(detail: "audit insert returned no sequence") }
        return sequence
    }

    func list(userId: String, limit: Int) async throws -> [AuditRecord] {
        try await pool.withConnection { db in
            try db.query("""
                SELECT sequence, occurred_at, user_id, event_type, ip, user_agent, details FROM audit_log
                WHERE user_id = $1 ORDER BY occurred_at DESC, sequence DESC LIMIT $2
                """, [userId, min(max(limit, 1), 1000)]) { row in
                AuditRecord(sequence: row.int64(0), event: AuditEvent(
                    occurredAt: row.date(1), userId: row.optionalText(2), type: row.text(3), ip: row.optionalText(4),
                    userAgent: row.optionalText(5), details: row.text(6)))
            }
        }
    }

    func search(_ query: AuditQuery) async throws -> [AuditRecord] {
        let (conditions, values) = query.whereClause(placeholder: { "$\($0)" })
        var parameters: [any SQLBindable] = values.map { value -> any SQLBindable in
            switch value {
            case .text(let text): text
            case .date(let date): date
            }
        }
        let limitPlaceholder = "$\(values.count + 1)"
        parameters.append(min(max(query.limit, 1), 1000))
        let bound = parameters
        return try await pool.withConnection { db in
            try db.query("""
                SELECT sequence, occurred_at, user_id, event_type, ip, user_agent, details FROM audit_log
                \(conditions) ORDER BY occurred_at DESC, sequence DESC LIMIT \(limitPlaceholder)
                """, bound) { row in
                AuditRecord(sequence: row.int64(0), event: AuditEvent(
                    occurredAt: row.date(1), userId: row.optionalText(2), type: row.text(3), ip: row.optionalText(4),
                    userAgent: row.optionalText(5), details: row.text(6)))
            }
        }
    }

    func count(userId: String?) async throws -> Int {
        try await pool.withConnection { db in
            if let userId {
                return try db.queryOne("SELECT COUNT(*) FROM audit_log WHERE user_id = $1", [userId]) { $0.int(0) } ?? 0
            }
            return try db.queryOne("SELECT COUNT(*) FROM audit_log", []) { $0.int(0) } ?? 0
        }
    }

    func purge(olderThan cutoff: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM audit_log WHERE sequence IN (
                    SELECT sequence FROM audit_log WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2)
                """, [cutoff, max(limit, 0)])
        }
    }
}
