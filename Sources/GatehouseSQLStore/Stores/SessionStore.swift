import Foundation
import GatehouseStore

/// Cookie sessions, on either backend.
struct SQLSessionStore<Database: SQLDatabase>: SessionStore {
    let database: Database

    func create(_ session: Session) async throws {
        _ = try await database.write { db in
            try db.run(SessionSQL.insert, [
                session.idHash, session.userId, session.createdAt, session.lastSeenAt, session.idleExpiresAt,
                session.absoluteExpiresAt, session.ip, session.userAgent, session.authMethods.joined(separator: " "),
            ])
        }
    }

    func findValid(idHash: TokenHash, now: Date) async throws -> Session? {
        try await database.read { db in try db.queryOne(SessionSQL.findValid, [idHash, now, now], SessionSQL.decode) }
    }

    func touch(idHash: TokenHash, lastSeenAt: Date, idleExpiresAt: Date) async throws -> Bool {
        try await database.write { db in
            try db.run("""
                UPDATE sessions SET last_seen_at = ?, idle_expires_at = ?
                WHERE id_hash = ? AND idle_expires_at > ? AND absolute_expires_at > ?
                """, [lastSeenAt, idleExpiresAt, idHash, lastSeenAt, lastSeenAt])
        } > 0
    }

    func delete(idHash: TokenHash) async throws -> Bool {
        try await database.write { db in try db.run("DELETE FROM sessions WHERE id_hash = ?", [idHash]) } > 0
    }

    func deleteAll(userId: String, keeping: TokenHash?) async throws -> Int {
        try await database.write { db in
            if let keeping {
                return try db.run("DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?", [userId, keeping])
            }
            return try db.run("DELETE FROM sessions WHERE user_id = ?", [userId])
        }
    }

    func list(userId: String, now: Date) async throws -> [Session] {
        try await database.read { db in try db.query(SessionSQL.list, [userId, now, now], SessionSQL.decode) }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await sessionPurge.run(on: database, cutoff: now, limit: limit)
    }
}

enum SessionColumn: Int32, SQLColumn {
    case idHash, userId, createdAt, lastSeenAt, idleExpiresAt, absoluteExpiresAt, ip, userAgent, authMethods
}

enum SessionSQL {
    static let columns = SessionColumn.list()
    static let insert = "INSERT INTO sessions (\(columns)) VALUES (\(SessionColumn.placeholders))"
    static let findValid = """
        SELECT \(columns) FROM sessions
        WHERE id_hash = ? AND idle_expires_at > ? AND absolute_expires_at > ?
        """
    static let list = """
        SELECT \(columns) FROM sessions
        WHERE user_id = ? AND idle_expires_at > ? AND absolute_expires_at > ?
        ORDER BY last_seen_at DESC, id_hash
        """

    static func decode(_ row: some SQLRow) -> Session {
        typealias C = SessionColumn
        let methods = row.text(C.authMethods).split(separator: " ").map(String.init)
        return Session(idHash: row.tokenHash(C.idHash), userId: row.text(C.userId), createdAt: row.date(C.createdAt),
                       lastSeenAt: row.date(C.lastSeenAt), idleExpiresAt: row.date(C.idleExpiresAt),
                       absoluteExpiresAt: row.date(C.absoluteExpiresAt), ip: row.optionalText(C.ip),
                       userAgent: row.optionalText(C.userAgent), authMethods: methods)
    }
}

private let sessionPurge = SQLBatchPurge(table: "sessions", key: "id_hash",
                                         condition: "idle_expires_at <= ? OR absolute_expires_at <= ?")
