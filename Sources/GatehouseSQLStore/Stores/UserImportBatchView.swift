import Foundation
import GatehouseStore

/// A string compared byte for byte, as the keys' binary collation compares them in the database: Swift's `==`
/// takes canonically equivalent strings as equal, and would merge two subjects (or emails) the database keeps apart.
struct ExactText: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool { lhs.text.utf8.elementsEqual(rhs.text.utf8) }

    func hash(into hasher: inout Hasher) {
        var text = self.text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A provider identity's key, (provider, subject).
struct IdentityKey: Hashable {
    let provider: ExactText
    let subject: ExactText

    init(_ identity: ImportedIdentity) { provider = ExactText(identity.provider); subject = ExactText(identity.subject) }
    init(provider: String, subject: String) { self.provider = ExactText(provider); self.subject = ExactText(subject) }
}

/// What the database holds of the accounts and identities a batch of import rows names, read in a few
/// statements (one per kind of key, not one per row), then kept as each row of the batch changes it: every
/// row is judged on the state its predecessors in the batch left, as if it had read the database again.
struct UserImportBatchView {
    /// An account as the import rules see it, and the product user id recorded on it.
    struct Account {
        var match: ImportMatch
        var externalId: String?
    }

    private(set) var accounts: [ExactText: Account] = [:]
    private var idByEmail: [ExactText: ExactText] = [:]
    private var idByExternal: [ExactText: ExactText] = [:]
    /// User ids of the batch's new accounts that exist already.
    private var takenIds: Set<ExactText> = []
    /// Identity → the user it is linked to; a key the batch names that is absent is not linked.
    private(set) var identityOwners: [IdentityKey: String] = [:]

    static let accountColumns = "id, email, email_verified, password_hash IS NOT NULL, imported, verified_by_import, external_id"

    /// Reads what `rows` name; `lock` (` FOR UPDATE` in a PostgreSQL transaction) locks the accounts read.
    static func read<Connection: SQLConnection>(_ rows: [ImportedUser], lock: String, _ db: Connection) throws -> Self {
        var view = Self()
        var emails: [String] = [], externals: [String] = [], newIds: [String] = [], identities: Set<IdentityKey> = []
        var seenEmails: Set<ExactText> = [], seenExternals: Set<ExactText> = [], seenIds: Set<ExactText> = []
        for row in rows {
            if seenEmails.insert(ExactText(row.email)).inserted { emails.append(row.email) }
            if let external = row.productUserId, seenExternals.insert(ExactText(external)).inserted { externals.append(external) }
            if seenIds.insert(ExactText(row.newId)).inserted { newIds.append(row.newId) }
            for identity in row.identities { identities.insert(IdentityKey(identity)) }
        }
        func decode(_ row: Connection.Row) -> Account {
            Account(match: ImportMatch(userId: row.text(0), email: row.text(1), emailVerified: row.bool(2), hasPassword: row.bool(3),
                                       imported: row.bool(4), verifiedByImport: row.bool(5)), externalId: row.optionalText(6))
        }
        let select = "SELECT \(accountColumns) FROM users WHERE "
        for account in try SQLValueLists.select(db, externals, sql: { select + "external_id IN (\($0))" + lock }, decode)
            + SQLValueLists.select(db, emails, sql: { select + "email IN (\($0))" + lock }, decode) {
            view.remember(account)
        }
        for id in try SQLValueLists.select(db, newIds, sql: { "SELECT id FROM users WHERE id IN (\($0))" }, { $0.text(0) }) {
            view.takenIds.insert(ExactText(id))
        }
        // Per provider, `subject IN (…)`: a row value `IN (VALUES …)` makes SQLite scan the whole table.
        var subjectsByProvider: [ExactText: [String]] = [:]
        for key in identities { subjectsByProvider[key.provider, default: []].append(key.subject.text) }
        for (provider, subjects) in subjectsByProvider {
            let found = try SQLValueLists.select(db, subjects, leading: [provider.text], sql: { (list: String) in
                "SELECT subject, user_id FROM external_identities WHERE provider = ? AND subject IN (\(list))"
            }, { ($0.text(0), $0.text(1)) })
            for (subject, owner) in found {
                view.identityOwners[IdentityKey(provider: provider.text, subject: subject)] = owner
            }
        }
        return view
    }

    private mutating func remember(_ account: Account) {
        let id = ExactText(account.match.userId)
        accounts[id] = account
        idByEmail[ExactText(account.match.email)] = id
        if let external = account.externalId { idByExternal[ExactText(external)] = id }
        takenIds.insert(id)
    }

    /// The account `row` would be written onto, if any: by product user id, then by email. Throws when the
    /// two name different accounts, or the email's account was imported under another product user id.
    func match(_ row: ImportedUser) throws(ImportRowConflict) -> ImportMatch? {
        let byExternal = row.productUserId.flatMap { idByExternal[ExactText($0)] }.flatMap { accounts[$0] }
        let byEmail = idByEmail[ExactText(row.email)].flatMap { accounts[$0] }
        if let byExternal, let byEmail, ExactText(byExternal.match.userId) != ExactText(byEmail.match.userId) {
            throw ImportRowConflict(line: row.line, reason: "email \(row.email) belongs to another account than external id \(row.productUserId!)")
        }
        if let external = row.productUserId, byExternal == nil, let recorded = byEmail?.externalId,
           ExactText(recorded) != ExactText(external) {
            throw ImportRowConflict(line: row.line, reason: "account \(row.email) was imported with another external id")
        }
        return (byExternal ?? byEmail)?.match
    }

    func isTaken(id: String) -> Bool { takenIds.contains(ExactText(id)) }

    /// `row` created a new account.
    mutating func created(_ row: ImportedUser) {
        remember(Account(match: ImportMatch(userId: row.newId, email: row.email, emailVerified: row.emailVerified,
                                            hasPassword: row.passwordHash != nil, imported: true, verifiedByImport: row.emailVerified),
                         externalId: row.productUserId))
    }

    /// `row` was written onto the account `userId` as `update` says (the UPDATE of `SQLUserImportStore`).
    mutating func updated(_ userId: String, by row: ImportedUser, _ update: ImportUpdate) {
        let id = ExactText(userId)
        guard var account = accounts[id] else { return }
        if idByEmail[ExactText(account.match.email)] == id { idByEmail[ExactText(account.match.email)] = nil }
        account.match.email = row.email
        account.match.emailVerified = update.emailVerified
        account.match.verifiedByImport = update.verifiedByImport
        switch update.password {
        case .keep: break
        case .set: account.match.hasPassword = true
        case .clear: account.match.hasPassword = false
        }
        account.match.imported = account.match.imported || update.markImported
        account.externalId = row.productUserId ?? account.externalId
        remember(account)
        if update.dropIdentities { identityOwners = identityOwners.filter { ExactText($0.value) != id } }
    }

    mutating func linked(_ identity: ImportedIdentity, to userId: String) { identityOwners[IdentityKey(identity)] = userId }
}
