import Foundation
import GatehouseStore

struct SQLiteSigningKeyStore: SigningKeyStore {
    let pool: SQLiteConnectionPool

    private static let columns = """
        kid, algorithm, public_jwk, encrypted_private_key, created_at, activates_at, retired_at, publish_until
        """

    func insert(_ key: SigningKey) async throws {
        _ = try await pool.write { db in
            try db.run("INSERT INTO signing_keys (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                key.kid, key.algorithm, key.publicJWK, key.encryptedPrivateKey,
                key.createdAt, key.activatesAt, key.retiredAt, key.publishUntil,
            ])
        }
    }

    func list() async throws -> [SigningKey] {
        try await pool.read { db in
            try db.query("SELECT \(Self.columns) FROM signing_keys ORDER BY created_at, kid", [], Self.decode)
        }
    }

    func find(kid: String) async throws -> SigningKey? {
        try await pool.read { db in
            try db.queryOne("SELECT \(Self.columns) FROM signing_keys WHERE kid = ?", [kid], Self.decode)
        }
    }

    func retire(kid: String, at: Date, publishUntil: Date) async throws {
        let changed = try await pool.write { db in
            try db.run("UPDATE signing_keys SET retired_at = ?, publish_until = ? WHERE kid = ?", [at, publishUntil, kid])
        }
        if changed == 0 { throw StoreError.notFound(detail: "signing key \(kid)") }
    }

    func deleteExpired(now: Date) async throws -> Int {
        try await pool.write { db in
            try db.run("DELETE FROM signing_keys WHERE publish_until IS NOT NULL AND publish_until < ?", [now])
        }
    }

    private static func decode(_ row: SQLiteRow) -> SigningKey {
        SigningKey(kid: row.text(0), algorithm: row.text(1), publicJWK: row.text(2),
                   encryptedPrivateKey: row.blob(3), createdAt: row.date(4), activatesAt: row.date(5),
                   retiredAt: row.optionalDate(6), publishUntil: row.optionalDate(7))
    }
}
