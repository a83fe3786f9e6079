import Foundation
import GatehouseStore

struct SQLiteConsentStore: ConsentStore {
    let pool: SQLiteConnectionPool

    private static let columns = "user_id, client_id, scopes, granted_at"

    func save(_ consent: Consent) async throws {
        _ = try await pool.write { db in
            try db.run("""
                INSERT INTO consents (\(Self.columns)) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
                """, [consent.userId, consent.clientId, StoredStringList.encode(consent.scopes), consent.grantedAt])
        }
    }

    func find(userId: String, clientId: String) async throws -> Consent? {
        try await pool.read { db in
            try db.queryOne("SELECT \(Self.columns) FROM consents WHERE user_id = ? AND client_id = ?",
                            [userId, clientId], Self.decode)
        }
    }

    func revoke(userId: String, clientId: String) async throws -> Bool {
        try await pool.write { db in
            try db.run("DELETE FROM consents WHERE user_id = ? AND client_id = ?", [userId, clientId])
        } > 0
    }

    func list(userId: String) async throws -> [Consent] {
        try await pool.read { db in
            try db.query("SELECT \(Self.columns) FROM consents WHERE user_id = ? ORDER BY client_id", [userId], Self.decode)
        }
    }

    private static func decode(_ row: SQLiteRow) throws -> Consent {
        Consent(userId: row.text(0), clientId: row.text(1),
                scopes: try StoredStringList.decode(row.text(2), column: "scopes", backend: "sqlite"), grantedAt: row.date(3))
    }
}
