import Foundation
import GatehouseStore

struct PostgresOneTimeTokenStore: OneTimeTokenStore {
    let pool: PostgresConnectionPool

    private static let columns = "hash, purpose, user_id, created_at, expires_at, used_at, payload"

    func create(_ token: OneTimeToken) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO one_time_tokens (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
                token.hash, token.purpose.rawValue, token.userId, token.createdAt, token.expiresAt,
                token.usedAt, token.payload,
            ])
        }
    }

    func consume(hash: TokenHash, purpose: TokenPurpose, now: Date) async throws -> OneTimeToken? {
        // One conditional UPDATE. Concurrent callers queue on the row lock; under READ COMMITTED
        // each later one re-checks the WHERE clause against the committed row, finds used_at
        // set, and changes nothing — in this process or any other.
        try await pool.withConnection { db in
            try db.queryOne("""
                UPDATE one_time_tokens SET used_at = $1
                WHERE hash = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $1
                RETURNING \(Self.columns)
                """, [now, hash, purpose.rawValue], Self.decode)
        }
    }

    func invalidateAll(userId: String, purpose: TokenPurpose) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("DELETE FROM one_time_tokens WHERE user_id = $1 AND purpose = $2", [userId, purpose.rawValue])
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM one_time_tokens WHERE hash IN (
                    SELECT hash FROM one_time_tokens WHERE expires_at <= $1 LIMIT $2)
                """, [now, max(limit, 0)])
        }
    }

    private static func decode(_ row: PostgresRow) -> OneTimeToken {
        OneTimeToken(hash: TokenHash(row.blob(0)), purpose: TokenPurpose(rawValue: row.text(1)), userId: row.text(2),
                     createdAt: row.date(3), expiresAt: row.date(4), usedAt: row.optionalDate(5), payload: row.text(6))
    }
}
