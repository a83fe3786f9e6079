import Foundation
import GatehouseStore

/// Remembered consents, on either backend.
struct SQLConsentStore<Database: SQLDatabase>: ConsentStore {
    let database: Database

    func save(_ consent: Consent) async throws {
        _ = try await database.write { db in
            try db.run(ConsentSQL.save,
                       [consent.userId, consent.clientId, StoredStringList.encode(consent.scopes), consent.grantedAt])
        }
    }

    func find(userId: String, clientId: String) async throws -> Consent? {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.queryOne(ConsentSQL.find, [userId, clientId]) { try ConsentSQL.decode($0, backend: backend) }
        }
    }

    func revoke(userId: String, clientId: String) async throws -> Bool {
        try await database.write { db in
            try db.run("DELETE FROM consents WHERE user_id = ? AND client_id = ?", [userId, clientId])
        } > 0
    }

    func list(userId: String) async throws -> [Consent] {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.query(ConsentSQL.list, [userId]) { try ConsentSQL.decode($0, backend: backend) }
        }
    }
}

private enum ConsentColumn: Int32, SQLColumn {
    case userId, clientId, scopes, grantedAt
}

enum ConsentSQL {
    static let columns = ConsentColumn.list()
    static let save = """
        INSERT INTO consents (\(columns)) VALUES (\(ConsentColumn.placeholders))
        ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
        """
    static let find = "SELECT \(columns) FROM consents WHERE user_id = ? AND client_id = ?"
    static let list = "SELECT \(columns) FROM consents WHERE user_id = ? ORDER BY client_id"

    static func decode(_ row: some SQLRow, backend: String) throws -> Consent {
        Consent(userId: row.text(ConsentColumn.userId), clientId: row.text(ConsentColumn.clientId),
                scopes: try StoredStringList.decode(row.text(ConsentColumn.scopes), column: "scopes", backend: backend),
                grantedAt: row.date(ConsentColumn.grantedAt))
    }
}
