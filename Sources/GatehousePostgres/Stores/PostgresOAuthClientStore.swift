import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresOAuthClientStore: OAuthClientStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        id, name, kind, secret_hash, redirect_uris, post_logout_redirect_uris, grant_types, scopes, first_party, \
        allow_localhost, web_origins, metadata, created_at, updated_at
        """

    func create(_ client: OAuthClient) async throws {
        _ = try await pool.withConnection { db in
            try db.run("""
                INSERT INTO oauth_clients (\(Self.columns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
                """, Self.values(of: client))
        }
    }

    func find(id: String) async throws -> OAuthClient? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM oauth_clients WHERE id = $1", [id], Self.decode)
        }
    }

    func list() async throws -> [OAuthClient] {
        try await pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM oauth_clients ORDER BY id", [], Self.decode)
        }
    }

    func update(_ client: OAuthClient) async throws {
        // Every column but the id is replaced; parameters are in `columns` order, id first.
        let changed = try await pool.withConnection { db in
            try db.run("""
                UPDATE oauth_clients SET name = $2, kind = $3, secret_hash = $4, redirect_uris = $5,
                    post_logout_redirect_uris = $6, grant_types = $7, scopes = $8, first_party = $9,
                    allow_localhost = $10, web_origins = $11, metadata = $12, created_at = $13, updated_at = $14
                WHERE id = $1
                """, Self.values(of: client))
        }
        if changed == 0 { throw StoreError.notFound(detail: "oauth client \(client.id)") }
    }

    func delete(id: String) async throws -> Bool {
        // Codes, refresh tokens and consents of the client go with it (ON DELETE CASCADE).
        try await pool.withConnection { db in try db.run("DELETE FROM oauth_clients WHERE id = $1", [id]) } > 0
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

    private static func decode(_ row: PostgresRow) throws -> OAuthClient {
        guard let kind = OAuthClient.Kind(rawValue: row.text(2)) else {
            throw StoreError.failure(detail: "postgres: oauth client \(row.text(0)) has an unknown kind")
        }
        return OAuthClient(
            id: row.text(0), name: row.text(1), kind: kind, secretHash: row.optionalText(3),
            redirectURIs: try StoredStringList.decode(row.text(4), column: "redirect_uris", backend: "postgres"),
            postLogoutRedirectURIs: try StoredStringList.decode(row.text(5), column: "post_logout_redirect_uris", backend: "postgres"),
            grantTypes: try StoredStringList.decode(row.text(6), column: "grant_types", backend: "postgres"),
            scopes: try StoredStringList.decode(row.text(7), column: "scopes", backend: "postgres"),
            firstParty: row.bool(8), allowLocalhost: row.bool(9),
            webOrigins: try StoredStringList.decode(row.text(10), column: "web_origins", backend: "postgres"),
            metadata: row.text(11), createdAt: row.date(12), updatedAt: row.date(13))
    }
}
