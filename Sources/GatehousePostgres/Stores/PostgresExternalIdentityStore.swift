import Foundation
import GatehouseStore

struct PostgresExternalIdentityStore: ExternalIdentityStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        provider, subject, user_id, email, email_verified, is_private_relay, display_name, sealed_refresh_token, \
        created_at, last_used_at
        """

    func create(_ identity: ExternalIdentity) async throws {
        _ = try await pool.withConnection { db in
            try db.run("""
                INSERT INTO external_identities (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """, [
                identity.provider, identity.subject, identity.userId, identity.email, identity.emailVerified,
                identity.isPrivateRelay, identity.displayName, identity.sealedRefreshToken, identity.createdAt,
                identity.lastUsedAt,
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
                    display_name = $4, sealed_refresh_token = $5, last_used_at = $6
                WHERE provider = $7 AND subject = $8
                """, [
                identity.email, identity.emailVerified, identity.isPrivateRelay, identity.displayName,
                identity.sealedRefreshToken, identity.lastUsedAt, identity.provider, identity.subject,
            ])
        }
        if changed == 0 { throw StoreError.notFound(detail: "external identity \(identity.provider)") }
    }

    func delete(provider: String, subject: String) async throws -> Bool {
        try await pool.withConnection { db in
            try db.run("DELETE FROM external_identities WHERE provider = $1 AND subject = $2", [provider, subject])
        } > 0
    }

    private static func decode(_ row: PostgresRow) -> ExternalIdentity {
        ExternalIdentity(provider: row.text(0), subject: row.text(1), userId: row.text(2), email: row.optionalText(3),
                         emailVerified: row.bool(4), isPrivateRelay: row.bool(5), displayName: row.optionalText(6),
                         sealedRefreshToken: row.isNull(7) ? nil : row.blob(7), createdAt: row.date(8),
                         lastUsedAt: row.date(9))
    }
}
