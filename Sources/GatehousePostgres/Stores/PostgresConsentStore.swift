import Foundation
import GatehouseStore

struct PostgresConsentStore: ConsentStore {
    let pool: PostgresConnectionPool

    private static let columns = "user_id, client_id, scopes, granted_at"

    func save(_ consent: Consent) async throws {
        _ = try await pool.withConnection { db in
            try db.run("""
                INSERT INTO consents (\(Self.columns)) VALUES ($1, $2, $3, $4)
                ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                """, [consent.userId, consent.clientId, StoredStringList.encode(consent.scopes), consent.grantedAt])
        }
    }

    func find(userId: String, clientId: String) async throws -> Consent? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM consents WHERE user_id = $1 AND client_id = $2",
                            [userId, clientId], Self.decode)
        }
    }

    func revoke(userId: String, clientId: String) async throws -> Bool {
        try await pool.withConnection { db in
            try db.run("DELETE FROM consents WHERE user_id = $1 AND client_id = $2", [userId, clientId])
        } > 0
    }

    func list(userId: String) async throws -> [Consent] {
        try await pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM consents WHERE user_id = $1 ORDER BY client_id", [userId],
                         Self.decode)
        }
    }

    private static func decode(_ row: PostgresRow) throws -> Consent {
        Consent(userId: row.text(0), clientId: row.text(1),
                scopes: try StoredStringList.decode(row.text(2), column: "scopes", backend: "postgres"), grantedAt: row.date(3))
    }
}
