import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresSessionStore: SessionStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        id_hash, user_id, created_at, last_seen_at, idle_expires_at, absolute_expires_at, ip, user_agent, auth_methods
        """

    func create(_ session: Session) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO sessions (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
                session.idHash, session.userId, session.createdAt, session.lastSeenAt, session.idleExpiresAt,
                session.absoluteExpiresAt, session.ip, session.userAgent, session.authMethods.joined(separator: " "),
            ])
        }
    }

    func findValid(idHash: TokenHash, now: Date) async throws -> Session? {
        try await pool.withConnection { db in
            try db.queryOne("""
                SELECT \(Self.columns) FROM sessions
                WHERE id_hash = $1 AND idle_expires_at > $2 AND absolute_expires_at > $2
                """, [idHash, now], Self.decode)
        }
    }

    func touch(idHash: TokenHash, lastSeenAt: Date, idleExpiresAt: Date) async throws -> Bool {
        try await pool.withConnection { db in
            try db.run("""
                UPDATE sessions SET last_seen_at = $1, idle_expires_at = $2
                WHERE id_hash = $3 AND idle_expires_at > $1 AND absolute_expires_at > $1
                """, [lastSeenAt, idleExpiresAt, idHash])
        } > 0
    }

    func delete(idHash: TokenHash) async throws -> Bool {
        try await pool.withConnection { db in try db.run("DELETE FROM sessions WHERE id_hash = $1", [idHash]) } > 0
    }

    func deleteAll(userId: String, keeping: TokenHash?) async throws -> Int {
        try await pool.withConnection { db in
            if let keeping {
                return try db.run("DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2", [userId, keeping])
            }
            return try db.run("DELETE FROM sessions WHERE user_id = $1", [userId])
        }
    }

    func list(userId: String, now: Date) async throws -> [Session] {
        try await pool.withConnection { db in
            try db.query("""
                SELECT \(Self.columns) FROM sessions
                WHERE user_id = $1 AND idle_expires_at > $2 AND absolute_expires_at > $2
                ORDER BY last_seen_at DESC, id_hash
                """, [userId, now], Self.decode)
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM sessions WHERE id_hash IN (
                    SELECT id_hash FROM sessions WHERE idle_expires_at <= $1 OR absolute_expires_at <= $1 LIMIT $2)
                """, [now, max(limit, 0)])
        }
    }

    private static func decode(_ row: PostgresRow) -> Session {
        let methods = row.text(8).split(separator: " ").map(String.init)
        return Session(idHash: TokenHash(row.blob(0)), userId: row.text(1), createdAt: row.date(2),
                       lastSeenAt: row.date(3), idleExpiresAt: row.date(4), absoluteExpiresAt: row.date(5),
                       ip: row.optionalText(6), userAgent: row.optionalText(7), authMethods: methods)
    }
}
