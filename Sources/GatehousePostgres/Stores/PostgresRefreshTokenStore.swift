import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Refresh tokens. A token is *live* while it is neither revoked nor expired; it is *current*
/// (usable without a grace window) while it is also not rotated.
struct PostgresRefreshTokenStore: RefreshTokenStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        hash, family_id, client_id, user_id, scope, auth_time, auth_methods, created_at, expires_at, rotated_at, \
        revoked_at
        """

    func create(_ token: RefreshToken) async throws {
        _ = try await pool.withConnection { db in try Self.insert(token, db) }
    }

    func find(hash: TokenHash) async throws -> RefreshToken? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM refresh_tokens WHERE hash = $1", [hash], Self.decode)
        }
    }

    func rotate(hash: TokenHash, replacement: RefreshToken, now: Date, graceWindow: TimeInterval) async throws
        -> RefreshRotation {
        // One transaction that first locks the presented row (FOR UPDATE): a concurrent rotation
        // of the same token, in any process, waits here and then reads the committed row, with
        // rotated_at already set.
        try await pool.transaction { db in
            guard var presented = try db.queryOne("""
                SELECT \(Self.columns) FROM refresh_tokens WHERE hash = $1 FOR UPDATE
                """, [hash], Self.decode),
                  presented.revokedAt == nil, presented.expiresAt > now else {
                return .invalid
            }
            if Self.mayRotate(presented, now: now, graceWindow: graceWindow) {
                guard replacement.familyId == presented.familyId else {
                    throw StoreError.invalidArgument(detail: "replacement refresh token is of another family")
                }
                if presented.rotatedAt != nil {
                    // A retry inside the grace window never forks a second live branch: it is served
                    // only when it names the successor already issued (the caller derives it from the
                    // presented token) and that successor is still current; anything else is refused.
                    guard let successor = try db.queryOne("SELECT \(Self.columns) FROM refresh_tokens WHERE hash = $1",
                                                          [replacement.hash], Self.decode),
                          successor.familyId == presented.familyId, successor.revokedAt == nil, successor.rotatedAt == nil,
                          successor.expiresAt > now else {
                        return .refused
                    }
                    return .rotated(presented)
                }
                // The first rotation time is kept, so a grace window never slides.
                let rotatedAt = presented.rotatedAt ?? now
                try db.run("UPDATE refresh_tokens SET rotated_at = $1 WHERE hash = $2", [rotatedAt, hash])
                try Self.insert(replacement, db)
                presented.rotatedAt = rotatedAt
                return .rotated(presented)
            }
            // A replay of a token rotated before the grace window: the family is compromised.
            try Self.revokeLive(familyId: presented.familyId, now: now, db)
            presented.revokedAt = now
            return .reused(presented)
        }
    }

    func revokeFamily(_ familyId: String, now: Date) async throws -> Int {
        try await pool.withConnection { db in try Self.revokeLive(familyId: familyId, now: now, db) }
    }

    func revokeAll(userId: String, clientId: String?, now: Date) async throws -> Int {
        try await pool.withConnection { db in
            if let clientId {
                return try db.run("""
                    UPDATE refresh_tokens SET revoked_at = $1
                    WHERE user_id = $2 AND client_id = $3 AND revoked_at IS NULL AND expires_at > $1
                    """, [now, userId, clientId])
            }
            return try db.run("""
                UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL AND expires_at > $1
                """, [now, userId])
        }
    }

    func familyIds(userId: String, clientId: String?, now: Date) async throws -> [String] {
        try await pool.withConnection { db in
            guard let clientId else {
                return try db.query("""
                    SELECT DISTINCT family_id FROM refresh_tokens
                    WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2 ORDER BY family_id
                    """, [userId, now]) { $0.text(0) }
            }
            return try db.query("""
                SELECT DISTINCT family_id FROM refresh_tokens
                WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL AND expires_at > $3 ORDER BY family_id
                """, [userId, clientId, now]) { $0.text(0) }
        }
    }

    func isFamilyActive(_ familyId: String, now: Date) async throws -> Bool {
        try await pool.withConnection { db in
            try db.queryOne("""
                SELECT 1 FROM refresh_tokens WHERE family_id = $1 AND revoked_at IS NULL AND expires_at > $2 LIMIT 1
                """, [familyId, now]) { _ in true } ?? false
        }
    }

    func activeGrants(userId: String, now: Date) async throws -> [ActiveGrant] {
        // Current tokens with the creation time of their family's first token (the grant), the
        // oldest grant of each client first; the first row per client is its entry.
        let rows = try await pool.withConnection { db in
            try db.query("""
                SELECT t.client_id, t.scope, f.granted_at FROM refresh_tokens t
                JOIN (SELECT family_id, MIN(created_at) AS granted_at FROM refresh_tokens
                      WHERE user_id = $1 GROUP BY family_id) f ON f.family_id = t.family_id
                WHERE t.user_id = $1 AND t.revoked_at IS NULL AND t.rotated_at IS NULL AND t.expires_at > $2
                ORDER BY t.client_id, f.granted_at, t.family_id, t.created_at
                """, [userId, now]) { row in
                ActiveGrant(clientId: row.text(0), scope: row.text(1), since: row.date(2))
            }
        }
        var seen = Set<String>()
        return rows.filter { seen.insert($0.clientId).inserted }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("""
                DELETE FROM refresh_tokens WHERE hash IN (
                    SELECT hash FROM refresh_tokens WHERE expires_at <= $1 LIMIT $2)
                """, [now, max(limit, 0)])
        }
    }

    // MARK: - Shared by the operations above

    /// Not rotated yet, or first rotated less than `graceWindow` ago (compared in whole
    /// milliseconds, the stored precision). Without a grace window a rotated token never rotates
    /// again: a concurrent request that read the clock before the winner did (so its `now` is
    /// earlier than `rotated_at`) would otherwise see a negative age and pass the check.
    private static func mayRotate(_ token: RefreshToken, now: Date, graceWindow: TimeInterval) -> Bool {
        guard let rotatedAt = token.rotatedAt else { return true }
        let graceMilliseconds = Int64((graceWindow * 1000).rounded())
        guard graceMilliseconds > 0 else { return false }
        return now.millisecondsSinceEpoch - rotatedAt.millisecondsSinceEpoch < graceMilliseconds
    }

    private static func insert(_ token: RefreshToken, _ db: PostgresConnection) throws {
        try db.run("INSERT INTO refresh_tokens (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", [
            token.hash, token.familyId, token.clientId, token.userId, token.scope, token.authTime,
            StoredStringList.encode(token.authMethods), token.createdAt, token.expiresAt, token.rotatedAt,
            token.revokedAt,
        ])
    }

    /// Revokes the family's live tokens (rotated ones included); returns how many.
    @discardableResult
    private static func revokeLive(familyId: String, now: Date, _ db: PostgresConnection) throws -> Int {
        try db.run("""
            UPDATE refresh_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL AND expires_at > $1
            """, [now, familyId])
    }

    private static func decode(_ row: PostgresRow) throws -> RefreshToken {
        RefreshToken(
            hash: TokenHash(row.blob(0)), familyId: row.text(1), clientId: row.text(2), userId: row.text(3),
            scope: row.text(4), authTime: row.date(5),
            authMethods: try StoredStringList.decode(row.text(6), column: "auth_methods", backend: "postgres"), createdAt: row.date(7),
            expiresAt: row.date(8), rotatedAt: row.optionalDate(9), revokedAt: row.optionalDate(10))
    }
}
