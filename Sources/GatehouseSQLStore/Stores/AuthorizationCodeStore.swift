import Foundation
import GatehouseStore

/// Single-use authorization codes, on either backend.
struct SQLAuthorizationCodeStore<Database: SQLDatabase>: AuthorizationCodeStore {
    let database: Database
    private let redeemSQL: String

    init(database: Database) {
        self.database = database
        // The casts give PostgreSQL the parameter types it cannot infer inside COALESCE; SQLite
        // passes NULL and values through them unchanged.
        redeemSQL = """
            UPDATE authorization_codes
            SET used_at = ?, issued_family_id = COALESCE(CAST(? AS TEXT), issued_family_id),
                expires_at = \(database.dialect.greatest)(expires_at, COALESCE(CAST(? AS BIGINT), expires_at))
            WHERE hash = ? AND used_at IS NULL AND expires_at > ?
            RETURNING \(AuthorizationCodeSQL.columns)
            """
    }

    func create(_ code: AuthorizationCode) async throws {
        _ = try await database.write { db in
            try db.run(AuthorizationCodeSQL.insert, [
                code.hash, code.clientId, code.userId, code.redirectURI, code.scope, code.nonce, code.codeChallenge,
                code.authTime, StoredStringList.encode(code.authMethods), code.createdAt, code.expiresAt, code.usedAt,
                code.issuedFamilyId, code.dpopJKT, code.resources.isEmpty ? nil : StoredStringList.encode(code.resources),
            ])
        }
    }

    func redeem(hash: TokenHash, now: Date, familyId: String?, retainUntil: Date?) async throws -> CodeRedemption {
        // One conditional UPDATE marks the code used for at most one caller. SQLite: whoever holds
        // the write lock first; PostgreSQL: concurrent redeemers queue on the row lock and, under
        // READ COMMITTED, each later one re-checks the WHERE clause against the committed row,
        // finds used_at set and changes nothing. A caller that changed nothing reads the row to
        // tell a replay (used_at set) from an unknown or expired code.
        let backend = database.dialect.name
        return try await database.write { [redeemSQL] db in
            let decode = { (row: Database.Connection.Row) in try AuthorizationCodeSQL.decode(row, backend: backend) }
            if let redeemed = try db.queryOne(redeemSQL, [now, familyId, retainUntil, hash, now], decode) {
                return .redeemed(redeemed)
            }
            let existing = try db.queryOne(AuthorizationCodeSQL.find, [hash], decode)
            if let existing, existing.usedAt != nil { return .alreadyUsed(existing) }
            return .invalid
        }
    }

    func attachFamily(hash: TokenHash, familyId: String) async throws {
        let changed = try await database.write { db in
            try db.run("UPDATE authorization_codes SET issued_family_id = ? WHERE hash = ?", [familyId, hash])
        }
        if changed == 0 { throw StoreError.notFound(detail: "authorization code \(hash)") }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await authorizationCodePurge.run(on: database, cutoff: now, limit: limit)
    }
}

private enum AuthorizationCodeColumn: Int32, SQLColumn {
    case hash, clientId, userId, redirectUri, scope, nonce, codeChallenge, authTime, authMethods, createdAt,
         expiresAt, usedAt, issuedFamilyId, dpopJkt, resources
}

private enum AuthorizationCodeSQL {
    static let columns = AuthorizationCodeColumn.list()
    static let insert = "INSERT INTO authorization_codes (\(columns)) VALUES (\(AuthorizationCodeColumn.placeholders))"
    static let find = "SELECT \(columns) FROM authorization_codes WHERE hash = ?"

    static func decode(_ row: some SQLRow, backend: String) throws -> AuthorizationCode {
        typealias C = AuthorizationCodeColumn
        return AuthorizationCode(
            hash: row.tokenHash(C.hash), clientId: row.text(C.clientId), userId: row.text(C.userId),
            redirectURI: row.text(C.redirectUri), scope: row.text(C.scope), nonce: row.optionalText(C.nonce),
            codeChallenge: row.optionalText(C.codeChallenge), authTime: row.date(C.authTime),
            authMethods: try StoredStringList.decode(row.text(C.authMethods), column: C.authMethods.name, backend: backend),
            createdAt: row.date(C.createdAt), expiresAt: row.date(C.expiresAt), usedAt: row.optionalDate(C.usedAt),
            issuedFamilyId: row.optionalText(C.issuedFamilyId), dpopJKT: row.optionalText(C.dpopJkt),
            resources: try row.optionalText(C.resources).map { try StoredStringList.decode($0, column: C.resources.name, backend: backend) } ?? [])
    }
}

private let authorizationCodePurge = SQLBatchPurge(table: "authorization_codes", key: "hash", condition: "expires_at <= ?")
