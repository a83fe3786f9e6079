import Foundation
import GatehouseStore

/// JWS signing keys, on either backend.
struct SQLSigningKeyStore<Database: SQLDatabase>: SigningKeyStore {
    let database: Database

    func insert(_ key: SigningKey) async throws {
        _ = try await database.write { db in
            try db.run(SigningKeySQL.insert, [
                key.kid, key.algorithm, key.publicJWK, key.encryptedPrivateKey,
                key.createdAt, key.activatesAt, key.retiredAt, key.publishUntil,
            ])
        }
    }

    func list() async throws -> [SigningKey] {
        try await database.read { db in try db.query(SigningKeySQL.list, [], SigningKeySQL.decode) }
    }

    func find(kid: String) async throws -> SigningKey? {
        try await database.read { db in try db.queryOne(SigningKeySQL.find, [kid], SigningKeySQL.decode) }
    }

    func retire(kid: String, at: Date, publishUntil: Date) async throws {
        let changed = try await database.write { db in
            try db.run("UPDATE signing_keys SET retired_at = ?, publish_until = ? WHERE kid = ?", [at, publishUntil, kid])
        }
        if changed == 0 { throw StoreError.notFound(detail: "signing key \(kid)") }
    }

    func deleteExpired(now: Date) async throws -> Int {
        try await database.write { db in
            try db.run("DELETE FROM signing_keys WHERE publish_until IS NOT NULL AND publish_until < ?", [now])
        }
    }
}

private enum SigningKeyColumn: Int32, SQLColumn {
    case kid, algorithm, publicJwk, encryptedPrivateKey, createdAt, activatesAt, retiredAt, publishUntil
}

private enum SigningKeySQL {
    static let columns = SigningKeyColumn.list()
    static let insert = "INSERT INTO signing_keys (\(columns)) VALUES (\(SigningKeyColumn.placeholders))"
    static let list = "SELECT \(columns) FROM signing_keys ORDER BY created_at, kid"
    static let find = "SELECT \(columns) FROM signing_keys WHERE kid = ?"

    static func decode(_ row: some SQLRow) -> SigningKey {
        typealias C = SigningKeyColumn
        return SigningKey(kid: row.text(C.kid), algorithm: row.text(C.algorithm), publicJWK: row.text(C.publicJwk),
                          encryptedPrivateKey: row.blob(C.encryptedPrivateKey), createdAt: row.date(C.createdAt),
                          activatesAt: row.date(C.activatesAt), retiredAt: row.optionalDate(C.retiredAt),
                          publishUntil: row.optionalDate(C.publishUntil))
    }
}
