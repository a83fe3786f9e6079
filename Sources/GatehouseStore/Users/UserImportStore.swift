import Foundation

/// One account to bring over from another system (`gatehouse user import`), already validated
/// and normalised by the identity layer.
public struct ImportedUser: Sendable, Equatable {
    /// Where the row came from in the import file, for error messages.
    public var line: Int
    /// Normalised email; matches an existing account when no product user id does.
    public var email: String
    public var displayName: String?
    public var emailVerified: Bool
    /// When the account was created in the old system; nil keeps the stored (or the import) time.
    public var createdAt: Date?
    /// A hash Gatehouse can verify (Argon2 PHC or bcrypt); nil leaves a stored hash as it is.
    public var passwordHash: String?
    /// The id the product already uses for this user (its foreign keys point at it). Unique.
    public var productUserId: String?
    /// Provider sign-ins to link (Devise + OmniAuth `provider` / `uid`).
    public var identities: [ImportedIdentity]
    /// The id a new account gets (an existing one keeps its id).
    public var newId: String

    public init(line: Int, email: String, displayName: String? = nil, emailVerified: Bool = false, createdAt: Date? = nil,
                passwordHash: String? = nil, productUserId: String? = nil, identities: [ImportedIdentity] = [], newId: String) {
        self.line = line; self.email = email; self.displayName = displayName; self.emailVerified = emailVerified
        self.createdAt = createdAt; self.passwordHash = passwordHash; self.productUserId = productUserId
        self.identities = identities; self.newId = newId
    }
}

/// An upstream identity to link to an imported user, keyed by (provider, subject) as always.
public struct ImportedIdentity: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var email: String?

    public init(provider: String, subject: String, email: String? = nil) {
        self.provider = provider; self.subject = subject; self.email = email
    }
}

/// What importing one row did.
public struct ImportOutcome: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable { case created, updated }
    public var line: Int
    public var userId: String
    public var action: Action
    /// The row was merged into an unproven account created in Gatehouse, whose previous attachments must go
    /// (sessions, refresh tokens, consents) once the batch is written; its identities went in the batch.
    public var claimed: Bool

    public init(line: Int, userId: String, action: Action, claimed: Bool = false) {
        self.line = line; self.userId = userId; self.action = action; self.claimed = claimed
    }
}

/// What the store knows of the existing account an import row matches (by product user id, then by email).
public struct ImportMatch: Sendable, Equatable {
    public var userId: String
    public var email: String
    public var emailVerified: Bool
    public var hasPassword: Bool
    /// Created by an import, or merged into one at the operator's explicit request.
    public var imported: Bool
    /// The verified flag came from an import file; Gatehouse itself has not proven the address since.
    public var verifiedByImport: Bool

    public init(userId: String, email: String, emailVerified: Bool, hasPassword: Bool, imported: Bool, verifiedByImport: Bool) {
        self.userId = userId; self.email = email; self.emailVerified = emailVerified; self.hasPassword = hasPassword
        self.imported = imported; self.verifiedByImport = verifiedByImport
    }
}

/// How a row is written onto the account it matched — decided by the identity layer's import rules.
public enum ImportMerge: Sendable, Equatable {
    case update(ImportUpdate)
    /// Not written: the reason is reported with the row's line, and the batch rolls back.
    case refuse(reason: String)
}

/// The parts of an update the import rules decide (name, creation time and product user id follow the row).
public struct ImportUpdate: Sendable, Equatable {
    public enum Password: Sendable, Equatable {
        case keep
        case set(String)
        /// The account's creator chose a password the real owner never knew: it goes.
        case clear
    }
    public var emailVerified: Bool
    public var verifiedByImport: Bool
    public var password: Password
    /// Unlink every identity the account had before the row's own are linked (the account is being claimed).
    public var dropIdentities: Bool
    /// The account is matched by later imports without asking again.
    public var markImported: Bool

    public init(emailVerified: Bool, verifiedByImport: Bool, password: Password, dropIdentities: Bool = false, markImported: Bool = true) {
        self.emailVerified = emailVerified; self.verifiedByImport = verifiedByImport; self.password = password
        self.dropIdentities = dropIdentities; self.markImported = markImported
    }
}

/// A row the database refused (its email or identity belongs to another account); the whole
/// batch it was in was rolled back.
public struct ImportRowConflict: Error, Sendable, Equatable {
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) { self.line = line; self.reason = reason }
}

/// Bulk, idempotent account import: each batch is one transaction, so a failed batch leaves nothing behind.
public protocol UserImportStore: Sendable {
    /// Creates or updates every row of `batch` in one transaction.
    ///
    /// A row matches an existing account by `productUserId` first, then by `email`; `merge` decides, inside the
    /// transaction, how a match is written (or refuses it), otherwise an account is created with `newId`
    /// (marked imported). Identities are linked when absent and refreshed when already linked to the same
    /// account. Throws ``ImportRowConflict`` (and writes nothing) when `merge` refuses a row or a row's email,
    /// product user id or identity belongs to another account.
    func importBatch(_ batch: [ImportedUser], at: Date,
                     merge: @escaping @Sendable (ImportedUser, ImportMatch) -> ImportMerge) async throws -> [ImportOutcome]

    /// Writes every row of an import in one transaction when the database holds no account yet, or returns
    /// nil having written nothing: when it holds one, or when two rows name the same email, product user id,
    /// new id or identity (``importBatch(_:at:merge:)`` then judges the rows one after another).
    ///
    /// Every row creates its account; no merge rule is asked, as nothing can match. The outcomes come in the
    /// order the accounts were written, which is the order that also fills the audit's by-user index in sequence.
    /// Made for a first import of a whole user base: it holds the database's writer until it ends (on
    /// PostgreSQL the two tables it fills are locked), and builds their secondary indexes after the rows.
    func loadIntoEmpty(_ rows: [ImportedUser], at: Date) async throws -> [ImportOutcome]?

    /// After an import has written its batches: lets the database's planner see what they wrote (PostgreSQL
    /// analyzes the accounts and their identities; SQLite keeps no statistics, and nothing is done).
    func importFinished() async throws

    /// The account `row` would be written onto, if any; throws ``ImportRowConflict`` when its email and its
    /// product user id name two different accounts.
    func match(_ row: ImportedUser) async throws -> ImportMatch?

    /// ``match(_:)`` of every row, in row order, read together (each row on its own against the database,
    /// not after the others): a conflict is that row's failure.
    func matches(_ rows: [ImportedUser]) async throws -> [Result<ImportMatch?, ImportRowConflict>]

    /// The account whose product user id is `productUserId`.
    func find(productUserId: String) async throws -> User?

    /// The product user id recorded for a user at import, if any.
    func productUserId(userId: String) async throws -> String?
}
