import Foundation
import GatehouseStore

/// Bulk import of accounts (`gatehouse user import`), on either backend.
struct SQLUserImportStore<Database: SQLDatabase>: UserImportStore {
    let database: Database

    func importBatch(_ batch: [ImportedUser], at now: Date,
                     merge: @escaping @Sendable (ImportedUser, ImportMatch) -> ImportMerge) async throws -> [ImportOutcome] {
        // One transaction: a thrown conflict rolls the whole batch back. The match is read (and, on
        // PostgreSQL, locked) inside it, so the rules judge the account as it is when the row is written.
        let lock = database.dialect.forUpdate
        return try await database.transaction { db in try batch.map { try Self.importRow($0, at: now, merge: merge, lock: lock, db) } }
    }

    func match(_ row: ImportedUser) async throws -> ImportMatch? {
        try await database.read { db in try Self.match(row, lock: "", db) }
    }

    private static func match(_ row: ImportedUser, lock: String, _ db: Database.Connection) throws -> ImportMatch? {
        let select = "SELECT id, email, email_verified, password_hash IS NOT NULL, imported, verified_by_import, external_id FROM users"
        func decode(_ row: some SQLRow) -> (ImportMatch, String?) {
            (ImportMatch(userId: row.text(0), email: row.text(1), emailVerified: row.bool(2), hasPassword: row.bool(3),
                         imported: row.bool(4), verifiedByImport: row.bool(5)), row.optionalText(6))
        }
        let byExternal = try row.productUserId.flatMap { id in try db.queryOne(select + " WHERE external_id = ?" + lock, [id], decode) }
        let byEmail = try db.queryOne(select + " WHERE email = ?" + lock, [row.email], decode)
        if let byExternal, let byEmail, byExternal.0.userId != byEmail.0.userId {
            throw ImportRowConflict(line: row.line, reason: "email \(row.email) belongs to another account than external id \(row.productUserId!)")
        }
        if row.productUserId != nil, byExternal == nil, let recorded = byEmail?.1, recorded != row.productUserId {
            throw ImportRowConflict(line: row.line, reason: "account \(row.email) was imported with another external id")
        }
        return (byExternal ?? byEmail)?.0
    }

    private static func importRow(_ row: ImportedUser, at now: Date, merge: (ImportedUser, ImportMatch) -> ImportMerge,
                                  lock: String, _ db: Database.Connection) throws -> ImportOutcome {
        let userId: String
        let action: ImportOutcome.Action
        var claimed = false
        if let existing = try match(row, lock: lock, db) {
            let update: ImportUpdate
            switch merge(row, existing) {
            case .refuse(let reason): throw ImportRowConflict(line: row.line, reason: reason)
            case .update(let decided): update = decided
            }
            let (passwordSQL, password): (String, String?) = switch update.password {
            case .keep: ("password_hash", nil)
            case .set(let hash): ("?", hash)
            case .clear: ("NULL", nil)
            }
            var parameters: [any SQLBindable] = [row.email, row.displayName, update.emailVerified, update.verifiedByImport]
            if case .set = update.password { parameters.append(password) }
            parameters += [update.markImported, row.createdAt, row.productUserId, now, existing.userId]
            // COALESCE keeps what the file does not give (the stored creation time, an product user id).
            _ = try db.run("""
                UPDATE users SET email = ?, display_name = ?, email_verified = ?, verified_by_import = ?,
                    password_hash = \(passwordSQL), imported = (imported OR ?), created_at = COALESCE(?, created_at),
                    external_id = COALESCE(?, external_id), updated_at = ?
                WHERE id = ?
                """, parameters)
            if update.dropIdentities {
                _ = try db.run("DELETE FROM external_identities WHERE user_id = ?", [existing.userId])
                claimed = true
            }
            userId = existing.userId; action = .updated
        } else {
            if try db.queryOne("SELECT 1 FROM users WHERE id = ?", [row.newId], { $0.int(0) }) != nil {
                throw ImportRowConflict(line: row.line, reason: "user id \(row.newId) is taken by another account")
            }
            _ = try db.run(UserImportSQL.insertUser, [
                row.newId, row.email, row.displayName, row.passwordHash, row.emailVerified, false, row.createdAt ?? now, now,
                nil as String?, nil as String?, row.productUserId, true, row.emailVerified,
            ])
            userId = row.newId; action = .created
        }
        for identity in row.identities {
            let owner = try db.queryOne("SELECT user_id FROM external_identities WHERE provider = ? AND subject = ?",
                                        [identity.provider, identity.subject]) { $0.text(0) }
            switch owner {
            case nil:
                _ = try db.run("""
                    INSERT INTO external_identities (provider, subject, user_id, email, email_verified, is_private_relay,
                        display_name, sealed_refresh_token, created_at, last_used_at)
                    VALUES (?, ?, ?, ?, FALSE, ?, NULL, NULL, ?, ?)
                    """, [identity.provider, identity.subject, userId, identity.email,
                          identity.email?.hasSuffix("@privaterelay.appleid.com") ?? false, now, now])
            case userId?:
                _ = try db.run("UPDATE external_identities SET email = COALESCE(?, email) WHERE provider = ? AND subject = ?",
                               [identity.email, identity.provider, identity.subject])
            default:
                throw ImportRowConflict(line: row.line, reason: "\(identity.provider) identity \(identity.subject) is linked to another account")
            }
        }
        return ImportOutcome(line: row.line, userId: userId, action: action, claimed: claimed)
    }

    func find(productUserId: String) async throws -> User? {
        try await database.read { db in try db.queryOne(UserImportSQL.findByProductUserID, [productUserId], UserSQL.decode) }
    }

    func productUserId(userId: String) async throws -> String? {
        try await database.read { db in
            try db.queryOne("SELECT external_id FROM users WHERE id = ?", [userId]) { $0.optionalText(0) } ?? nil
        }
    }
}

private enum UserImportSQL {
    static let insertUser = """
        INSERT INTO users (\(UserSQL.columns), external_id, imported, verified_by_import) VALUES (\(UserColumn.placeholders), ?, ?, ?)
        """
    static let findByProductUserID = "SELECT \(UserSQL.columns) FROM users WHERE external_id = ?"
}
