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
        // One primary-key probe per key: SQLite turns `jti IN (…)` and `jti = ? OR jti = ?` into an ephemeral
        // table built and freed on every call (a quarter of an introspection's CPU).
        let probes = Array(repeating: "EXISTS (SELECT 1 FROM revoked_access_tokens WHERE jti = ?)", count: jtis.count)
        return try await database.read { db in
            try db.queryOne("SELECT " + probes.joined(separator: " OR "), jtis) { row in row.bool(0) } ?? false
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await revokedAccessTokenPurge.run(on: database, cutoff: now, limit: limit)
    }
}

private let revokedAccessTokenPurge = SQLBatchPurge(table: "revoked_access_tokens", key: "jti", condition: "expires_at <= ?")
