import Foundation
import GatehouseStore

/// `jti`s of access tokens revoked before they expire, on either backend.
struct SQLRevokedAccessTokenStore<Database: SQLDatabase>: RevokedAccessTokenStore {
    let database: Database
    private let revokeSQL: String

    init(database: Database) {
        self.database = database
        // Idempotent: revoking again keeps the row, with the later expiry of the two.
        revokeSQL = """
            INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)
            ON CONFLICT (jti) DO UPDATE SET
                expires_at = \(database.dialect.greatest)(revoked_access_tokens.expires_at, excluded.expires_at)
            """
    }

    func revoke(jti: String, expiresAt: Date) async throws {
        _ = try await database.write { [revokeSQL] db in try db.run(revokeSQL, [jti, expiresAt]) }
    }

    func isRevoked(jti: String) async throws -> Bool {
        try await database.read { db in
            try db.queryOne("SELECT 1 FROM revoked_access_tokens WHERE jti = ?", [jti]) { _ in true } ?? false
        }
    }

    func isAnyRevoked(_ jtis: [String]) async throws -> Bool {
        guard !jtis.isEmpty else { return false }
        let list = Array(repeating: "?", count: jtis.count).joined(separator: ", ")
        return try await database.read { db in
            try db.queryOne("SELECT 1 FROM revoked_access_tokens WHERE jti IN (\(list)) LIMIT 1", jtis) { _ in true } ?? false
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await revokedAccessTokenPurge.run(on: database, cutoff: now, limit: limit)
    }
}

private let revokedAccessTokenPurge = SQLBatchPurge(table: "revoked_access_tokens", key: "jti", condition: "expires_at <= ?")
