import Foundation
import GatehouseSQLStore
import GatehouseStore

struct SQLiteAuthorizationCodeStore: AuthorizationCodeStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        hash, client_id, user_id, redirect_uri, scope, nonce, code_challenge, auth_time, auth_methods, created_at, \
        expires_at, used_at, issued_family_id
        """

    func create(_ code: AuthorizationCode) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO authorization_codes (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                code.hash, code.clientId, code.userId, code.redirectURI, code.scope, code.nonce, code.codeChallenge,
                code.authTime, StoredStringList.encode(code.authMethods), code.createdAt, code.expiresAt, code.usedAt,
                code.issuedFamilyId,
            ])
        }
    }

    func redeem(hash: TokenHash, now: Date, familyId: String?, retainUntil: Date?) async throws -> CodeRedemption {
        // One conditional UPDATE marks the code used for at most one caller (whoever holds the
        // write lock first). A caller that changed nothing looks the row up, in the same
        // transaction, to tell a replay (used_at set) from an unknown or expired code.
        try await pool.write { db in
            if let redeemed = try db.queryOne("""
                UPDATE authorization_codes
                SET used_at = ?, issued_family_id = COALESCE(?, issued_family_id),
                    expires_at = MAX(expires_at, COALESCE(?, expires_at))
                WHERE hash = ? AND used_at IS NULL AND expires_at > ?
                RETURNING \(Self.columns)
                """, [now, familyId, retainUntil, hash, now], Self.decode) {
                return .redeemed(redeemed)
            }
            let existing = try db.queryOne("SELECT \(Self.columns) FROM authorization_codes WHERE hash = ?", [hash],
                                           Self.decode)
            if let existing, existing.usedAt != nil { return .alreadyUsed(existing) }
            return .invalid
        }
    }

    func attachFamily(hash: TokenHash, familyId: String) async throws {
        let changed = try await pool.write { db in
            try db.run("UPDATE authorization_codes SET issued_family_id = ? WHERE hash = ?", [familyId, hash])
        }
        if changed == 0 { throw StoreError.notFound(detail: "authorization code \(hash)") }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await pool.write { db in
            try db.run("""
                DELETE FROM authorization_codes WHERE hash IN (
                    SELECT hash FROM authorization_codes WHERE expires_at <= ? LIMIT ?)
                """, [now, max(limit, 0)])
        }
    }

    private static func decode(_ row: SQLiteRow) throws -> AuthorizationCode {
        AuthorizationCode(
            hash: TokenHash(row.blob(0)), clientId: row.text(1), userId: row.text(2), redirectURI: row.text(3),
            scope: row.text(4), nonce: row.optionalText(5), codeChallenge: row.optionalText(6), authTime: row.date(7),
            authMethods: try StoredStringList.decode(row.text(8), column: "auth_methods", backend: "sqlite"), createdAt: row.date(9),
            expiresAt: row.date(10), usedAt: row.optionalDate(11), issuedFamilyId: row.optionalText(12))
    }
}
