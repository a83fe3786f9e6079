import Foundation

/// One account to bring over from another system (`gatehouse user import`), already validated
/// and normalised by the identity layer.
public struct ImportedUser: Sendable, Equatable {
    /// Where the row came from in the import file, for error messages.
    public var line: Int
    /// Normalised email; matches an existing account when no external id does.
    public var email: String
    public var displayName: String?
    public var emailVerified: Bool
    /// When the account was created in the old system; nil keeps the stored (or the import) time.
    public var createdAt: Date?
    /// A hash Gatehouse can verify (Argon2 PHC or bcrypt); nil leaves a stored hash as it is.
    public var passwordHash: String?
    /// The id the product already uses for this user (its foreign keys point at it). Unique.
    public var externalId: String?
    /// Provider sign-ins to link (Devise + OmniAuth `provider` / `uid`).
    public var identities: [ImportedIdentity]
    /// The id a new account gets (an existing one keeps its id).
    public var newId: String

    public init(line: Int, email: String, displayName: String? = nil, emailVerified: Bool = false, createdAt: Date? = nil,
                passwordHash: String? = nil, externalId: String? = nil, identities: [ImportedIdentity] = [], newId: String) {
        self.line = line; self.email = email; self.displayName = displayName; self.emailVerified = emailVerified
        self.createdAt = createdAt; self.passwordHash = passwordHash; self.externalId = externalId
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

    public init(line: Int, userId: String, action: Action) { self.line = line; self.userId = userId; self.action = action }
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
    /// A row matches an existing account by `externalId` first, then by `email`; a match is
    /// updated (email, name, verified flag, creation time and password hash when given, external
    /// id), otherwise an account is created with `newId`. Identities are linked when absent and
    /// refreshed when already linked to the same account. Throws ``ImportRowConflict`` (and
    /// writes nothing) when a row's email, external id or identity belongs to another account.
    func importBatch(_ batch: [ImportedUser], at: Date) async throws -> [ImportOutcome]

    /// The account whose external id is `externalId`.
    func find(externalId: String) async throws -> User?

    /// The external id recorded for a user at import, if any.
    func externalId(userId: String) async throws -> String?
}
