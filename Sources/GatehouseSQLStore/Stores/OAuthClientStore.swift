import Foundation
import GatehouseStore

/// Registered OAuth clients, on either backend.
struct SQLOAuthClientStore<Database: SQLDatabase>: OAuthClientStore {
    let database: Database

    func create(_ client: OAuthClient) async throws {
        let values = OAuthClientSQL.values(of: client)
        _ = try await database.write { db in try db.run(OAuthClientSQL.insert, values) }
    }

    func find(id: String) async throws -> OAuthClient? {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.queryOne(OAuthClientSQL.find, [id]) { try OAuthClientSQL.decode($0, backend: backend) }
        }
    }

    func list() async throws -> [OAuthClient] {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.query(OAuthClientSQL.list, []) { try OAuthClientSQL.decode($0, backend: backend) }
        }
    }

    func update(_ client: OAuthClient) async throws {
        // Every column but the id is replaced; the id is the last parameter.
        let values = Array(OAuthClientSQL.values(of: client).dropFirst()) + [client.id]
        let changed = try await database.write { db in try db.run(OAuthClientSQL.update, values) }
        if changed == 0 { throw StoreError.notFound(detail: "oauth client \(client.id)") }
    }

    func delete(id: String) async throws -> Bool {
        // Codes, refresh tokens and consents of the client go with it (ON DELETE CASCADE).
        try await database.write { db in try db.run("DELETE FROM oauth_clients WHERE id = ?", [id]) } > 0
    }
}

private enum OAuthClientColumn: Int32, SQLColumn {
    case id, name, kind, secretHash, redirectUris, postLogoutRedirectUris, grantTypes, scopes, firstParty,
         allowLocalhost, webOrigins, metadata, createdAt, updatedAt
}

private enum OAuthClientSQL {
    static let columns = OAuthClientColumn.list()
    static let insert = "INSERT INTO oauth_clients (\(columns)) VALUES (\(OAuthClientColumn.placeholders))"
    static let find = "SELECT \(columns) FROM oauth_clients WHERE id = ?"
    static let list = "SELECT \(columns) FROM oauth_clients ORDER BY id"
    static let update = """
        UPDATE oauth_clients SET \(OAuthClientColumn.allCases.dropFirst().map { "\($0.name) = ?" }.joined(separator: ", "))
        WHERE id = ?
        """

    /// Parameters in column order.
    static func values(of client: OAuthClient) -> [any SQLBindable] {
        [
            client.id, client.name, client.kind.rawValue, client.secretHash,
            StoredStringList.encode(client.redirectURIs), StoredStringList.encode(client.postLogoutRedirectURIs),
            StoredStringList.encode(client.grantTypes), StoredStringList.encode(client.scopes),
            client.firstParty, client.allowLocalhost, StoredStringList.encode(client.webOrigins), client.metadata,
            client.createdAt, client.updatedAt,
        ]
    }

    static func decode(_ row: some SQLRow, backend: String) throws -> OAuthClient {
        typealias C = OAuthClientColumn
        guard let kind = OAuthClient.Kind(rawValue: row.text(C.kind)) else {
            throw StoreError.failure(detail: "\(backend): oauth client \(row.text(C.id)) has an unknown kind")
        }
        func list(_ column: C) throws -> [String] {
            try StoredStringList.decode(row.text(column), column: column.name, backend: backend)
        }
        return OAuthClient(
            id: row.text(C.id), name: row.text(C.name), kind: kind, secretHash: row.optionalText(C.secretHash),
            redirectURIs: try list(C.redirectUris), postLogoutRedirectURIs: try list(C.postLogoutRedirectUris),
            grantTypes: try list(C.grantTypes), scopes: try list(C.scopes),
            firstParty: row.bool(C.firstParty), allowLocalhost: row.bool(C.allowLocalhost),
            webOrigins: try list(C.webOrigins), metadata: row.text(C.metadata), createdAt: row.date(C.createdAt),
            updatedAt: row.date(C.updatedAt))
    }
}
