import Foundation
import GatehouseSQLStore
import GatehouseStore

struct PostgresUserImportStore: UserImportStore {
    let pool: PostgresConnectionPool

    private static let columns = "id, email, display_name, password_hash, email_verified, disabled, created_at, updated_at"

    func importBatch(_ batch: [ImportedUser], at now: Date) async throws -> [ImportOutcome] {
        // pool.transaction is one BEGIN IMMEDIATE transaction: a thrown conflict rolls the whole batch back.
        try await pool.transaction { db in try batch.map { try Self.importRow($0, at: now, db) } }
    }

    private static func importRow(_ row: ImportedUser, at now: Date, _ db: PostgresConnection) throws -> ImportOutcome {
        let byExternal = try row.externalId.flatMap { id in
            try db.queryOne("SELECT id FROM users WHERE external_id = $1", [id]) { $0.text(0) }
        }
        let byEmail = try db.queryOne("SELECT id FROM users WHERE email = $1", [row.email]) { $0.text(0) }
        if let byExternal, let byEmail, byExternal != byEmail {
            throw ImportRowConflict(line: row.line, reason: "email \(row.email) belongs to another account than external id \(row.externalId!)")
        }
        let userId: String
        let action: ImportOutcome.Action
        if let existing = byExternal ?? byEmail {
            if row.externalId != nil, byExternal == nil,
               let recorded = try db.queryOne("SELECT external_id FROM users WHERE id = $1", [existing], { $0.optionalText(0) }) ?? nil,
               recorded != row.externalId {
                throw ImportRowConflict(line: row.line, reason: "account \(row.email) was imported with another external id")
            }
            // COALESCE keeps what the file does not give (a stored hash, the stored creation time).
            _ = try db.run("""
                UPDATE users SET email = $1, display_name = $2, email_verified = $3, password_hash = COALESCE($4, password_hash),
                    created_at = COALESCE($5, created_at), external_id = COALESCE($6, external_id), updated_at = $7
                WHERE id = $8
                """, [row.email, row.displayName, row.emailVerified, row.passwordHash, row.createdAt, row.externalId, now, existing])
            userId = existing; action = .updated
        } else {
            if try db.queryOne("SELECT 1 FROM users WHERE id = $1", [row.newId], { $0.int(0) }) != nil {
                throw ImportRowConflict(line: row.line, reason: "user id \(row.newId) is taken by another account")
            }
            _ = try db.run("INSERT INTO users (\(columns), external_id) VALUES ($1, $2, $3, $4, $5, FALSE, $6, $7, $8)", [
                row.newId, row.email, row.displayName, row.passwordHash, row.emailVerified, row.createdAt ?? now, now, row.externalId,
            ])
            userId = row.newId; action = .created
        }
        for identity in row.identities {
            let owner = try db.queryOne("SELECT user_id FROM external_identities WHERE provider = $1 AND subject = $2",
                                        [identity.provider, identity.subject]) { $0.text(0) }
            switch owner {
            case nil:
                _ = try db.run("""
                    INSERT INTO external_identities (provider, subject, user_id, email, email_verified, is_private_relay,
                        display_name, sealed_refresh_token, created_at, last_used_at)
                    VALUES ($1, $2, $3, $4, FALSE, $5, NULL, NULL, $6, $7)
                    """, [identity.provider, identity.subject, userId, identity.email,
                          identity.email?.hasSuffix("@privaterelay.appleid.com") ?? false, now, now])
            case userId?:
                _ = try db.run("UPDATE external_identities SET email = COALESCE($1, email) WHERE provider = $2 AND subject = $3",
                               [identity.email, identity.provider, identity.subject])
            default:
                throw ImportRowConflict(line: row.line, reason: "\(identity.provider) identity \(identity.subject) is linked to another account")
            }
        }
        return ImportOutcome(line: row.line, userId: userId, action: action)
    }

    func find(externalId: String) async throws -> User? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT \(Self.columns) FROM users WHERE external_id = $1", [externalId]) { row in
                User(id: row.text(0), email: row.text(1), displayName: row.optionalText(2), passwordHash: row.optionalText(3),
                     emailVerified: row.bool(4), disabled: row.bool(5), createdAt: row.date(6), updatedAt: row.date(7))
            }
        }
    }

    func externalId(userId: String) async throws -> String? {
        try await pool.withConnection { db in
            try db.queryOne("SELECT external_id FROM users WHERE id = $1", [userId]) { $0.optionalText(0) } ?? nil
        }
    }
}

extension PostgresUserImportStore: UserSearchStore {
    func search(emailContaining query: String?, after cursor: String?, limit: Int) async throws -> Page<User> {
        let pageSize = min(max(limit, 1), 1000)
        var conditions: [String] = [], parameters: [any SQLBindable] = []
        if let query, !query.isEmpty {
            parameters.append(query.likeContainsPattern)
            conditions.append("email LIKE $\(parameters.count) ESCAPE '\\'")
        }
        if let cursor {
            let position = try UserListCursor(cursor)
            parameters += [position.createdAtMilliseconds, position.id]
            conditions.append("(created_at, id) > ($\(parameters.count - 1), $\(parameters.count))")
        }
        var sql = "SELECT \(Self.columns) FROM users"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        parameters.append(pageSize + 1)
        sql += " ORDER BY created_at, id LIMIT $\(parameters.count)"
        let rows = try await pool.withConnection { [sql, parameters] db in
            try db.query(sql, parameters) { row in
                User(id: row.text(0), email: row.text(1), displayName: row.optionalText(2), passwordHash: row.optionalText(3),
                     emailVerified: row.bool(4), disabled: row.bool(5), createdAt: row.date(6), updatedAt: row.date(7))
            }
        }
        let items = Array(rows.prefix(pageSize))
        let next = rows.count > pageSize ? items.last.map {
            UserListCursor(createdAtMilliseconds: $0.createdAt.millisecondsSinceEpoch, id: $0.id).encoded
        } : nil
        return Page(items: items, nextCursor: next)
    }
}
