import Foundation
import GatehouseStore

/// The append-only security log, on either backend.
struct SQLAuditLogStore<Database: SQLDatabase>: AuditLogStore {
    let database: Database

    func append(_ event: AuditEvent) async throws -> Int64 {
        let sequence = try await database.write { db in
            try db.queryOne("""
                INSERT INTO audit_log (occurred_at, user_id, event_type, ip, user_agent, details)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING sequence
                """, [event.occurredAt, event.userId, event.type, event.ip, event.userAgent, event.details]) {
                $0.int64(0)
            }
        }
        guard let sequence else { throw StoreError.failure(detail: "audit insert returned no sequence") }
        return sequence
    }

    func appendAll(_ events: [AuditEvent]) async throws {
        guard !events.isEmpty else { return }
        try await database.transaction { db in
            var start = 0
            for size in SQLValueLists.runs(events.count, limit: 128) {
                let parameters: [any SQLBindable] = events[start..<start + size].flatMap { event -> [any SQLBindable] in
                    [event.occurredAt, event.userId, event.type, event.ip, event.userAgent, event.details]
                }
                _ = try db.run("INSERT INTO audit_log (occurred_at, user_id, event_type, ip, user_agent, details) VALUES "
                               + SQLValueLists.placeholders(rows: size, width: 6), parameters)
                start += size
            }
        }
    }

    func list(userId: String, limit: Int) async throws -> [AuditRecord] {
        try await database.read { db in
            try db.query(AuditSQL.listByUser, [userId, min(max(limit, 1), 1000)], AuditSQL.decode)
        }
    }

    func search(_ query: AuditQuery) async throws -> [AuditRecord] {
        let (conditions, values) = query.whereClause(placeholder: { _ in "?" })
        var parameters: [any SQLBindable] = values.map { value -> any SQLBindable in
            switch value {
            case .text(let text): text
            case .date(let date): date
            }
        }
        parameters.append(min(max(query.limit, 1), 1000))
        let bound = parameters
        return try await database.read { db in
            try db.query("""
                SELECT \(AuditSQL.columns) FROM audit_log
                \(conditions) ORDER BY occurred_at DESC, sequence DESC LIMIT ?
                """, bound, AuditSQL.decode)
        }
    }

    func count(userId: String?) async throws -> Int {
        try await database.read { db in
            if let userId {
                return try db.queryOne("SELECT COUNT(*) FROM audit_log WHERE user_id = ?", [userId]) { $0.int(0) } ?? 0
            }
            return try db.queryOne("SELECT COUNT(*) FROM audit_log", []) { $0.int(0) } ?? 0
        }
    }

    func purge(olderThan cutoff: Date, limit: Int) async throws -> Int {
        try await auditLogPurge.run(on: database, cutoff: cutoff, limit: limit)
    }
}

private enum AuditColumn: Int32, SQLColumn {
    case sequence, occurredAt, userId, eventType, ip, userAgent, details
}

private enum AuditSQL {
    static let columns = AuditColumn.list()
    static let listByUser = """
        SELECT \(columns) FROM audit_log
        WHERE user_id = ? ORDER BY occurred_at DESC, sequence DESC LIMIT ?
        """

    static func decode(_ row: some SQLRow) -> AuditRecord {
        typealias C = AuditColumn
        return AuditRecord(sequence: row.int64(C.sequence), event: AuditEvent(
            occurredAt: row.date(C.occurredAt), userId: row.optionalText(C.userId), type: row.text(C.eventType),
            ip: row.optionalText(C.ip), userAgent: row.optionalText(C.userAgent), details: row.text(C.details)))
    }
}

private let auditLogPurge = SQLBatchPurge(table: "audit_log", key: "sequence", condition: "occurred_at < ?", order: " ORDER BY occurred_at")
