import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresExternalIdentityStore: ExternalIdentityStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        provider, subject, user_id, email, email_verified, is_private_relay, display_name, sealed_refresh_token, \
        created_at, last_used_at, token_client_id
        """

    func create(_ identity: ExternalIdentity) async throws {
        _ = try await pool.withConnection { db in
            try db.run("""
                INSERT INTO external_identities (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                """, [
                identity.provider, identity.subject, identity.userId, identity.email, identity.emailVerified,
                identity.isPrivateRelay, identity.displayName, identity.sealedRefreshToken, identity.createdAt,
                identity.lastUsedAt, identity.tokenClientID,
            ])
        }
    }

    func find(provider: String, subject: String) async throws -> ExternalIdentity? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM external_identities WHERE provider = $1 AND subject = $2",
                            [provider, subject], Self.decode)
        }
    }

    func list(userId: String) async throws -> [ExternalIdentity] {
        try await pool.withConnection { db in
            try db.query("""
                SELECT \(Self.columns) FROM external_identities WHERE user_id = $1 ORDER BY provider, subject
                """, [userId], Self.decode)
        }
    }

    func update(_ identity: ExternalIdentity) async throws {
        // The key, the user and the creation time never change.
        let changed = try await pool.withConnection { db in
            try db.run("""
                UPDATE external_identities SET email = $1, email_verified = $2, is_private_relay = $3,
                    display_name = $4, sealed_refresh_token = $5, token_client_id = $6, last_used_at = $7
                WHERE provider = $8 AND subject = $9
                """, [
                identity.email, identity.emailVerified, identity.isPrivateRelay, identity.displayName,
                identity.sealedRefreshToken, identity.tokenClientID, identity.lastUsedAt, identity.provider, identity.subject,
            ])
        }
        if changed == 0 { throw StoreError.notFound(detail: "external identity \(identity.provider)") }
    }

    func delete(provider: String, subject: String) async throws -> Bool {
        try await pool.withConnection { db in
            try db.run("DELETE FROM external_identities WHERE provider = $1 AND subject = $2", [provider, subject])
        } > 0
    }

    func deleteUnlessLastMethod(provider: String, subject: String, userId: String) async throws -> IdentityUnlinkOutcome {
        // Under READ COMMITTED two unlinks of different identities would each count the other's row and
        // both delete; locking the user row first serialises every unlink of one account.
        try await pool.transaction { db in
            let locked = try db.queryOne("SELECT password_hash IS NOT NULL FROM users WHERE id = $1 FOR UPDATE", [userId]) {
                $0.bool(0)
            }
            guard let hasPassword = locked else { return .notFound }
            let identities = try db.queryOne("SELECT COUNT(*) FROM external_identities WHERE user_id = $1", [userId]) {
                $0.int(0)
            } ?? 0
            let exists = try db.queryOne("""
                SELECT 1 FROM external_identities WHERE provider = $1 AND subject = $2 AND user_id = $3
                """, [provider, subject, userId]) { _ in true } ?? false
            guard exists else { return .notFound }
            guard identities + (hasPassword ? 1 : 0) > 1 else { return .lastMethod }
            _ = try db.run("DELETE FROM external_identities WHERE provider = $1 AND subject = $2 AND user_id = $3",
                           [provider, subject, userId])
            return .deleted
        }
    }

    func deleteAll(userId: String) async throws -> Int {
        try await pool.withConnection { db in try db.run("DELETE FROM external_identities WHERE user_id = $1", [userId]) }
    }

    private static func decode(_ row: PostgresRow) -> ExternalIdentity {
        ExternalIdentity(provider: row.text(0), subject: row.text(1), userId: row.text(2), email: row.optionalText(3),
                         emailVerified: row.bool(4), isPrivateRelay: row.bool(5), displayName: row.optionalText(6),
                         sealedRefreshToken: row.isNull(7) ? nil : row.blob(7), tokenClientID: row.optionalText(10),
                         createdAt: row.date(8), lastUsedAt: row.date(9))
    }
}
