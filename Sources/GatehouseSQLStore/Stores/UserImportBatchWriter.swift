import Foundation
import GatehouseStore

/// Writes one import batch inside its transaction: the rows are judged one after another on the batch's
/// view, new accounts and identities are gathered and inserted many rows to a statement, and updates run as
/// they come (after the inserts they depend on, if a row updates what an earlier row of the batch created).
struct UserImportBatchWriter {
    var view: UserImportBatchView
    let now: Date
    private var newUsers: [[any SQLBindable]] = []
    private var newUserIds: Set<ExactText> = []
    private var newIdentities: [[any SQLBindable]] = []
    /// A pending identity's row in `newIdentities`, so a later row of the batch can refresh its email.
    private var newIdentityIndex: [IdentityKey: Int] = [:]

    init(view: UserImportBatchView, now: Date) { self.view = view; self.now = now }

    mutating func importRow<Connection: SQLConnection>(_ row: ImportedUser, merge: (ImportedUser, ImportMatch) -> ImportMerge,
                                                       _ db: Connection) throws -> ImportOutcome {
        let userId: String
        let action: ImportOutcome.Action
        var claimed = false
        if let existing = try view.match(row) {
            let update: ImportUpdate
            switch merge(row, existing) {
            case .refuse(let reason): throw ImportRowConflict(line: row.line, reason: reason)
            case .update(let decided): update = decided
            }
            if newUserIds.contains(ExactText(existing.userId)) { try flush(db) }
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
                try flush(db)  // an identity this batch linked to the account goes too
                _ = try db.run("DELETE FROM external_identities WHERE user_id = ?", [existing.userId])
                claimed = true
            }
            view.updated(existing.userId, by: row, update)
            userId = existing.userId; action = .updated
        } else {
            if view.isTaken(id: row.newId) {
                throw ImportRowConflict(line: row.line, reason: "user id \(row.newId) is taken by another account")
            }
            newUsers.append(UserImportBatchSQL.userValues(row, now))
            newUserIds.insert(ExactText(row.newId))
            view.created(row)
            userId = row.newId; action = .created
        }
        for identity in row.identities {
            let key = IdentityKey(identity)
            switch view.identityOwners[key] {
            case nil:
                newIdentityIndex[key] = newIdentities.count
                newIdentities.append(UserImportBatchSQL.identityValues(identity, userId: userId, now))
                view.linked(identity, to: userId)
            case let owner? where ExactText(owner) == ExactText(userId):
                if let pending = newIdentityIndex[key] {
                    // The email column of a row not yet inserted: COALESCE(?, email), as the UPDATE below does.
                    if let email = identity.email { newIdentities[pending][3] = email }
                } else {
                    _ = try db.run("UPDATE external_identities SET email = COALESCE(?, email) WHERE provider = ? AND subject = ?",
                                   [identity.email, identity.provider, identity.subject])
                }
            default:
                throw ImportRowConflict(line: row.line, reason: "\(identity.provider) identity \(identity.subject) is linked to another account")
            }
        }
        return ImportOutcome(line: row.line, userId: userId, action: action, claimed: claimed)
    }

    /// Inserts the accounts and identities gathered so far (accounts first: identities reference them).
    mutating func flush<Connection: SQLConnection>(_ db: Connection) throws {
        try Self.insert(newUsers, UserImportBatchSQL.insertUsers, db)
        try Self.insert(newIdentities, UserImportBatchSQL.insertIdentities, db)
        newUsers = []; newUserIds = []; newIdentities = []; newIdentityIndex = [:]
    }

    private static func insert<Connection: SQLConnection>(_ rows: [[any SQLBindable]], _ sql: (Int) -> String, _ db: Connection) throws {
        try UserImportBatchSQL.insert(rows.count, sql, db) { rows[$0].flatMap { $0 } }
    }
}

/// The statements and values that insert imported accounts and identities, many rows to a statement.
enum UserImportBatchSQL {
    /// Rows per INSERT at most: 128 accounts are 1,664 parameters, well under either backend's limit.
    static let rowsPerInsert = 128

    /// Inserts `count` rows in runs of at most ``rowsPerInsert``; `values` gives a run's parameters.
    static func insert<Connection: SQLConnection>(_ count: Int, _ sql: (Int) -> String, _ db: Connection,
                                                  values: (Range<Int>) -> [any SQLBindable]) throws {
        var start = 0
        for size in SQLValueLists.runs(count, limit: rowsPerInsert) {
            _ = try db.run(sql(size), values(start..<start + size))
            start += size
        }
    }

    /// A new account's values, in ``insertUsers(_:)``'s column order.
    static func userValues(_ row: ImportedUser, _ now: Date) -> [any SQLBindable] {
        [row.newId, row.email, row.displayName, row.passwordHash, row.emailVerified, false, row.createdAt ?? now, now,
         nil as String?, nil as String?, row.productUserId, true, row.emailVerified]
    }

    /// A new identity's values, in ``insertIdentities(_:)``'s column order.
    static func identityValues(_ identity: ImportedIdentity, userId: String, _ now: Date) -> [any SQLBindable] {
        [identity.provider, identity.subject, userId, identity.email,
         identity.email?.hasSuffix("@privaterelay.appleid.com") ?? false, now, now]
    }

    static func insertUsers(_ rows: Int) -> String {
        "INSERT INTO users (\(UserSQL.columns), external_id, imported, verified_by_import) VALUES "
            + SQLValueLists.placeholders(rows: rows, width: UserColumn.allCases.count + 3)
    }

    static func insertIdentities(_ rows: Int) -> String {
        let row = "(?, ?, ?, ?, FALSE, ?, NULL, NULL, ?, ?)"
        return """
            INSERT INTO external_identities (provider, subject, user_id, email, email_verified, is_private_relay,
                display_name, sealed_refresh_token, created_at, last_used_at) VALUES
            """ + " " + Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
