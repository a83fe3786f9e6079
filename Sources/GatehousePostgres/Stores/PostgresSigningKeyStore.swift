import Foundation
import GatehouseStore

struct PostgresSigningKeyStore: SigningKeyStore {
    let pool: PostgresConnectionPool

    private static let columns = """
        kid, algorithm, public_jwk, encrypted_private_key, created_at, activates_at, retired_at, publish_until
        """

    func insert(_ key: SigningKey) async throws {
        _ = try await pool.withConnection { db in
            try db.run("INSERT INTO signing_keys (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
                key.kid, key.algorithm, key.publicJWK, key.encryptedPrivateKey,
                key.createdAt, key.activatesAt, key.retiredAt, key.publishUntil,
            ])
        }
    }

    func list() async throws -> [SigningKey] {
        try await pool.withConnection { db in
            try db.query("SELECT \(Self.columns) FROM signing_keys ORDER BY created_at, kid", [], Self.decode)
        }
    }

    func find(kid: String) async throws -> SigningKey? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM signing_keys WHERE kid = $1", [kid], Self.decode)
        }
    }

    func retire(kid: String, at: Date, publishUntil: Date) async throws {
        let changed = try await pool.withConnection { db in
            try db.run("UPDATE signing_keys SET retired_at = $1, publish_until = $2 WHERE kid = $3", [at, publishUntil, kid])
        }
        if changed == 0 { throw StoreError.notFound(detail: "signing key \(kid)") }
    }

    func deleteExpired(now: Date) async throws -> Int {
        try await pool.withConnection { db in
            try db.run("DELETE FROM signing_keys WHERE publish_until IS NOT NULL AND publish_until < $1", [now])
        }
    }

    private static func decode(_ row: PostgresRow) -> SigningKey {
        SigningKey(kid: row.text(0), algorithm: row.text(1), publicJWK: row.text(2),
                   encryptedPrivateKey: row.blob(3), createdAt: row.date(4), activatesAt: row.date(5),
                   retiredAt: row.optionalDate(6), publishUntil: row.optionalDate(7))
    }
}
