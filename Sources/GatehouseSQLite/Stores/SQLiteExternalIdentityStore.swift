import Foundation
import GatehouseSQLStore
import GatehouseStore

struct SQLiteExternalIdentityStore: ExternalIdentityStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        provider, subject, user_id, email, email_verified, is_private_relay, display_name, sealed_refresh_token, \
        created_at, last_used_at, token_client_id
        """

    func create(_ identity: ExternalIdentity) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO external_identities (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                identity.provider, identity.subject, identity.userId, identity.email, identity.emailVerified,
                identity.isPrivateRelay, identity.displayName, identity.sealedRefreshToken, identity.createdAt,
                identity.lastUsedAt, identity.tokenClientID,
            ])
        }
    }

    func find(provider: String, subject: String) async throws -> ExternalIdentity? {
        try await pool.read { db in
            try db.queryOne("SELECT \(Self.columns) FROM external_identities WHERE provider = ? AND subject = ?",
                            [provider, subject], Self.decode)
        }
    }

    func list(userId: String) async throws -> [ExternalIdentity] {
        try await pool.read { db in
            try db.query("""
                SELECT \(Self.columns) FROM external_identities WHERE user_id = ? ORDER BY provider, subject
                """, [userId], Self.decode)
        }
    }

    func update(_ identity: ExternalIdentity) async throws {
        // The key, the user and the creation time never change.
        let changed = try await pool.write { db in
            try db.run("""
                UPDATE external_identities SET email = ?, email_verified = ?, is_private_relay = ?, display_name = ?,
                    sealed_refresh_token = ?, token_client_id = ?, last_used_at = ?
                WHERE provider = ? AND subject = ?
                """, [
                identity.email, identity.emailVerified, identity.isPrivateRelay, identity.displayName,
                identity.sealedRefreshToken, identity.tokenClientID, identity.lastUsedAt, identity.provider, identity.subject,
            ])
        }
        if changed == 0 { throw StoreError.notFound(detail: "external identity \(identity.provider)") }
    }

    func delete(provider: String, subject: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM external_identities WHERE provider = ? AND subject = ?", [provider, subject])
        } > 0
    }

    func deleteUnlessLastMethod(provider: String, subject: String, userId: String) async throws -> IdentityUnlinkOutcome {
        // One writer and one statement inside its transaction: the count and the delete cannot interleave
        // with another unlink of the same account.
        try await pool.write { db in
            let deleted = try db.run("""
                DELETE FROM external_identities WHERE provider = ? AND subject = ? AND user_id = ?
                  AND (SELECT COUNT(*) FROM external_identities WHERE user_id = ?)
                    + (SELECT COUNT(*) FROM users WHERE id = ? AND password_hash IS NOT NULL) > 1
                """, [provider, subject, userId, userId, userId])
            if deleted > 0 { return .deleted }
            let exists = try db.queryOne("""
                SELECT 1 FROM external_identities WHERE provider = ? AND subject = ? AND user_id = ?
                """, [provider, subject, userId]) { _ in true } ?? false
            return exists ? .lastMethod : .notFound
        }
    }

    func deleteAll(userId: String) async throws -> Int {
        try await pool.write { db in try db.run("DELETE FROM external_identities WHERE user_id = ?", [userId]) }
    }

    private static func decode(_ row: SQLiteRow) -> ExternalIdentity {
        ExternalIdentity(provider: row.text(0), subject: row.text(1), userId: row.text(2), email: row.optionalText(3),
                         emailVerified: row.bool(4), isPrivateRelay: row.bool(5), displayName: row.optionalText(6),
                         sealedRefreshToken: row.isNull(7) ? nil : row.blob(7), tokenClientID: row.optionalText(10),
                         createdAt: row.date(8), lastUsedAt: row.date(9))
    }
}
