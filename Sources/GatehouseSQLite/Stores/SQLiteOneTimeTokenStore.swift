import Foundation
import GatehouseStore

struct SQLiteOneTimeTokenStore: OneTimeTokenStore {
    let pool: SQLiteConnectionPool

    private static let columns = "hash, purpose, user_id, created_at, expires_at, used_at, payload"

    func create(_ token: OneTimeToken) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO one_time_tokens (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", [
                token.hash, token.purpose.rawValue, token.userId, token.createdAt, token.expiresAt,
                token.usedAt, token.payload,
            ])
        }
    }

    func consume(hash: TokenHash, purpose: TokenPurpose, now: Date) async throws -> OneTimeToken? {
        // One conditional UPDATE: the row changes for at most one caller, whoever holds the
        // write lock first; every later caller finds used_at already set.
        try await pool.write { db in
            try db.queryOne("""
                UPDATE one_time_tokens SET used_at = ?
                WHERE hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
                RETURNING \(Self.columns)
                """, [now, hash, purpose.rawValue, now], Self.decode)
        }
    }

    func invalidateAll(userId: String, purpose: TokenPurpose) async throws -> Int {
        try await pool.write { db in
            try db.run("DELETE FROM one_time_tokens WHERE user_id = ? AND purpose = ?", [userId, purpose.rawValue])
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.run("""
                DELETE FROM one_time_tokens WHERE hash IN (
                    SELECT hash FROM one_time_tokens WHERE expires_at <= ? LIMIT ?)
                """, [now, max(limit, 0)])
        }
    }

    private static func decode(_ row: SQLiteRow) -> OneTimeToken {
        OneTimeToken(hash: TokenHash(row.blob(0)), purpose: TokenPurpose(rawValue: row.text(1)), userId: row.text(2),
                     createdAt: row.date(3), expiresAt: row.date(4), usedAt: row.optionalDate(5), payload: row.text(6))
    }
}
