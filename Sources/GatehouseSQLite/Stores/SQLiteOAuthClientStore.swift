import Foundation
import GatehouseSQLStore
import GatehouseStore

struct SQLiteOAuthClientStore: OAuthClientStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        id, name, kind, secret_hash, redirect_uris, post_logout_redirect_uris, grant_types, scopes, first_party, \
        allow_localhost, web_origins, metadata, created_at, updated_at
        """

    func create(_ client: OAuthClient) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO oauth_clients (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       Self.values(of: client))
        }
    }

    func find(id: String) async throws -> OAuthClient? {
        try await pool.read { db in
            try db.queryOne("SELECT \(Self.columns) FROM oauth_clients WHERE id = ?", [id], Self.decode)
        }
    }

    func list() async throws -> [OAuthClient] {
        try await pool.read { db in
            try db.query("SELECT \(Self.columns) FROM oauth_clients ORDER BY id", [], Self.decode)
        }
    }

    func update(_ client: OAuthClient) async throws {
        // Every column but the id is replaced; the id is the last parameter.
        let values = Self.values(of: client)
        let changed = try await pool.write { db in
            try db.run("""
                UPDATE oauth_clients SET name = ?, kind = ?, secret_hash = ?, redirect_uris = ?,
                    post_logout_redirect_uris = ?, grant_types = ?, scopes = ?, first_party = ?, allow_localhost = ?,
                    web_origins = ?, metadata = ?, created_at = ?, updated_at = ?
                WHERE id = ?
                """, Array(values.dropFirst()) + [client.id])
        }
        if changed == 0 { throw StoreError.notFound(detail: "oauth client \(client.id)") }
    }

    func delete(id: String) async throws -> Bool {
        // Codes, refresh tokens and consents of the client go with it (ON DELETE CASCADE).
        try await pool.write { db in try db.run("DELETE FROM oauth_clients WHERE id = ?", [id]) } > 0
    }

    /// Parameters in `columns` order.
    private static func values(of client: OAuthClient) -> [any SQLBindable] {
        [
            client.id, client.name, client.kind.rawValue, client.secretHash,
            StoredStringList.encode(client.redirectURIs), StoredStringList.encode(client.postLogoutRedirectURIs),
            StoredStringList.encode(client.grantTypes), StoredStringList.encode(client.scopes),
            client.firstParty, client.allowLocalhost, StoredStringList.encode(client.webOrigins), client.metadata,
            client.createdAt, client.updatedAt,
        ]
    }

    private static func decode(_ row: SQLiteRow) throws -> OAuthClient {
        guard let kind = OAuthClient.Kind(rawValue: row.text(2)) else {
            throw StoreError.failure(detail: "sqlite: oauth client \(row.text(0)) has an unknown kind")
        }
        return OAuthClient(
            id: row.text(0), name: row.text(1), kind: kind, secretHash: row.optionalText(3),
            redirectURIs: try StoredStringList.decode(row.text(4), column: "redirect_uris", backend: "sqlite"),
            postLogoutRedirectURIs: try StoredStringList.decode(row.text(5), column: "post_logout_redirect_uris", backend: "sqlite"),
            grantTypes: try StoredStringList.decode(row.text(6), column: "grant_types", backend: "sqlite"),
            scopes: try StoredStringList.decode(row.text(7), column: "scopes", backend: "sqlite"),
            firstParty: row.bool(8), allowLocalhost: row.bool(9),
            webOrigins: try StoredStringList.decode(row.text(10), column: "web_origins", backend: "sqlite"),
            metadata: row.text(11), createdAt: row.date(12), updatedAt: row.date(13))
    }
}
