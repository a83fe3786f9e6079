import Foundation
import GatehouseStore

/// Upstream identities linked to users, on either backend.
struct SQLExternalIdentityStore<Database: SQLDatabase>: ExternalIdentityStore {
    let database: Database
    private let lockUserSQL: String

    init(database: Database) {
        self.database = database
        lockUserSQL = "SELECT password_hash IS NOT NULL FROM users WHERE id = ?\(database.dialect.forUpdate)"
    }

    func create(_ identity: ExternalIdentity) async throws {
        _ = try await database.write { db in
            try db.run(ExternalIdentitySQL.insert, [
                identity.provider, identity.subject, identity.userId, identity.email, identity.emailVerified,
                identity.isPrivateRelay, identity.displayName, identity.sealedRefreshToken, identity.createdAt,
                identity.lastUsedAt, identity.tokenClientID,
            ])
        }
    }

    func createUser(_ user: User, withIdentity identity: ExternalIdentity) async throws {
        guard identity.userId == user.id else { throw StoreError.invalidArgument(detail: "identity of another user") }
        // One transaction: a conflict on the second insert rolls back the first.
        _ = try await database.transaction { db in
            try db.run(UserSQL.insert, [
                user.id, user.email, user.displayName, user.passwordHash, user.emailVerified, user.disabled, user.createdAt,
                user.updatedAt, user.language, user.timeZone,
            ])
            return try db.run(ExternalIdentitySQL.insert, [
                identity.provider, identity.subject, identity.userId, identity.email, identity.emailVerified,
                identity.isPrivateRelay, identity.displayName, identity.sealedRefreshToken, identity.createdAt,
                identity.lastUsedAt, identity.tokenClientID,
            ])
        }
    }

    func find(provider: String, subject: String) async throws -> ExternalIdentity? {
        try await database.read { db in
            try db.queryOne(ExternalIdentitySQL.find, [provider, subject], ExternalIdentitySQL.decode)
        }
    }

    func list(userId: String) async throws -> [ExternalIdentity] {
        try await database.read { db in
            try db.query(ExternalIdentitySQL.list, [userId], ExternalIdentitySQL.decode)
        }
    }

    func update(_ identity: ExternalIdentity) async throws {
        // The key, the user and the creation time never change.
        let changed = try await database.write { db in
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
        try await database.write { db in
            try db.run("DELETE FROM external_identities WHERE provider = ? AND subject = ?", [provider, subject])
        } > 0
    }

    func deleteUnlessLastMethod(provider: String, subject: String, userId: String) async throws -> IdentityUnlinkOutcome {
        // Count, then delete, in one transaction that first locks the user row: under PostgreSQL's
        // READ COMMITTED two unlinks of different identities would otherwise each count the other's
        // row and both delete; the lock serialises every unlink of one account. SQLite's single
        // writer serialises them already.
        try await database.transaction { [lockUserSQL] db in
            guard let hasPassword = try db.queryOne(lockUserSQL, [userId], { $0.bool(0) }) else { return .notFound }
            // Passkeys are ways in too: an account with a passkey may drop its last provider.
            let identities = try db.queryOne("""
                SELECT (SELECT COUNT(*) FROM external_identities WHERE user_id = ?) + (SELECT COUNT(*) FROM webauthn_credentials WHERE user_id = ?)
                """, [userId, userId]) { $0.int(0) } ?? 0
            let exists = try db.queryOne("""
                SELECT 1 FROM external_identities WHERE provider = ? AND subject = ? AND user_id = ?
                """, [provider, subject, userId]) { _ in true } ?? false
            guard exists else { return .notFound }
            guard identities + (hasPassword ? 1 : 0) > 1 else { return .lastMethod }
            _ = try db.run("DELETE FROM external_identities WHERE provider = ? AND subject = ? AND user_id = ?",
                           [provider, subject, userId])
            return .deleted
        }
    }

    func deleteAll(userId: String) async throws -> Int {
        try await database.write { db in try db.run("DELETE FROM external_identities WHERE user_id = ?", [userId]) }
    }
}

private enum ExternalIdentityColumn: Int32, SQLColumn {
    case provider, subject, userId, email, emailVerified, isPrivateRelay, displayName, sealedRefreshToken,
         createdAt, lastUsedAt, tokenClientId
}

enum ExternalIdentitySQL {
    static let columns = ExternalIdentityColumn.list()
    static let insert = "INSERT INTO external_identities (\(columns)) VALUES (\(ExternalIdentityColumn.placeholders))"
    static let find = "SELECT \(columns) FROM external_identities WHERE provider = ? AND subject = ?"
    static let list = "SELECT \(columns) FROM external_identities WHERE user_id = ? ORDER BY provider, subject"

    static func decode(_ row: some SQLRow) -> ExternalIdentity {
        typealias C = ExternalIdentityColumn
        return ExternalIdentity(
            provider: row.text(C.provider), subject: row.text(C.subject), userId: row.text(C.userId),
            email: row.optionalText(C.email), emailVerified: row.bool(C.emailVerified),
            isPrivateRelay: row.bool(C.isPrivateRelay), displayName: row.optionalText(C.displayName),
            sealedRefreshToken: row.optionalBlob(C.sealedRefreshToken), tokenClientID: row.optionalText(C.tokenClientId),
            createdAt: row.date(C.createdAt), lastUsedAt: row.date(C.lastUsedAt))
    }
}
