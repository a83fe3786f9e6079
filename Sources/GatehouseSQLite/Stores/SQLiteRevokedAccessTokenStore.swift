import Foundation
import GatehouseStore

struct SQLiteRevokedAccessTokenStore: RevokedAccessTokenStore {
    let pool: SQLiteConnectionPool

    func revoke(jti: String, expiresAt: Date) async throws {
        // Idempotent: revoking again keeps the row, with the later expiry of the two.
        _ = try await pool.write { db in
            try db.run("""
                INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)
                ON CONFLICT (jti) DO UPDATE SET expires_at = MAX(revoked_access_tokens.expires_at, excluded.expires_at)
                """, [jti, expiresAt])
        }
    }

    func isRevoked(jti: String) async throws -> Bool {
        try await pool.read { db in
            try db.queryOne("SELECT 1 FROM revoked_access_tokens WHERE jti = ?", [jti]) { _ in true } ?? false
        }
    }

    func isAnyRevoked(_ jtis: [String]) async throws -> Bool {
        guard !jtis.isEmpty else { return false }
        let list = (0..<jtis.count).map { _ in "?" }.joined(separator: ", ")
        return try await pool.read { db in
            try db.queryOne("SELECT 1 FROM revoked_access_tokens WHERE jti IN (\(list)) LIMIT 1", jtis) { _ in true } ?? false
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.run("""
                DELETE FROM revoked_access_tokens WHERE jti IN (
                    SELECT jti FROM revoked_access_tokens WHERE expires_at <= ? LIMIT ?)
                """, [now, max(limit, 0)])
        }
    }
}
