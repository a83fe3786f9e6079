import Foundation

/// A sign-in method from an upstream provider linked to a user, keyed by (provider, subject) — never by email.
public struct ExternalIdentity: Sendable, Equatable {
    /// The configured provider name (`apple`, `google`, `github`, or a generic OIDC provider's name).
    public var provider: String
    /// The provider's stable subject (`sub`, or GitHub's numeric id).
    public var subject: String
    public var userId: String
    public var email: String?
    public var emailVerified: Bool
    /// Apple private-relay address: never used to merge accounts.
    public var isPrivateRelay: Bool
    public var displayName: String?
    /// The provider's refresh token sealed with the server key (Apple: kept to revoke on account deletion).
    public var sealedRefreshToken: [UInt8]?
    /// The client id the refresh token was issued to (Apple: the web Services ID, or the bundle id of the
    /// native app that signed in). A provider revokes a token only when asked by the client that holds it.
    public var tokenClientID: String?
    public var createdAt: Date
    public var lastUsedAt: Date

    public init(provider: String, subject: String, userId: String, email: String? = nil, emailVerified: Bool = false,
                isPrivateRelay: Bool = false, displayName: String? = nil, sealedRefreshToken: [UInt8]? = nil,
                tokenClientID: String? = nil, createdAt: Date, lastUsedAt: Date? = nil) {
        self.provider = provider; self.subject = subject; self.userId = userId; self.email = email
        self.emailVerified = emailVerified; self.isPrivateRelay = isPrivateRelay; self.displayName = displayName
        self.sealedRefreshToken = sealedRefreshToken; self.tokenClientID = tokenClientID
        self.createdAt = createdAt; self.lastUsedAt = lastUsedAt ?? createdAt
    }
}

/// What ``ExternalIdentityStore/deleteUnlessLastMethod(provider:subject:userId:)`` did.
public enum IdentityUnlinkOutcome: Sendable, Equatable {
    case deleted
    /// The identity is the account's only way to sign in (no other identity, no password): kept.
    case lastMethod
    /// No such identity for that user.
    case notFound
}

public protocol ExternalIdentityStore: Sendable {
    /// `.conflict` when (provider, subject) is linked already; `.notFound` when the user does not exist.
    func create(_ identity: ExternalIdentity) async throws
    /// Creates `user` and its first sign-in method `identity` (whose `userId` is `user.id`) in one
    /// transaction: `.conflict` when the email or (provider, subject) is taken, and then neither is written.
    func createUser(_ user: User, withIdentity identity: ExternalIdentity) async throws
    func find(provider: String, subject: String) async throws -> ExternalIdentity?
    /// A user's linked identities, ordered by provider then subject.
    func list(userId: String) async throws -> [ExternalIdentity]
    /// Replaces email, flags, name, sealed token and last use of an existing identity; `.notFound` if absent.
    func update(_ identity: ExternalIdentity) async throws
    func delete(provider: String, subject: String) async throws -> Bool
    /// Deletes the identity only if the user keeps another way to sign in (another identity or a
    /// password), decided and done atomically: two concurrent unlinks never leave an account without one.
    func deleteUnlessLastMethod(provider: String, subject: String, userId: String) async throws -> IdentityUnlinkOutcome
    /// Deletes every identity of a user (the first proof of email ownership removes what was attached before it).
    @discardableResult
    func deleteAll(userId: String) async throws -> Int
}

/// A provider token that must be revoked upstream (Apple's `/auth/revoke` on account deletion),
/// retried until it succeeds.
public struct PendingRevocation: Sendable, Equatable {
    public var id: String
    public var provider: String
    public var sealedToken: [UInt8]
    /// `refresh_token` or `access_token`.
    public var tokenTypeHint: String
    /// The client id to revoke as: the one the token was issued to (nil: the provider's configured web client).
    public var clientID: String?
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var createdAt: Date

    public init(id: String, provider: String, sealedToken: [UInt8], tokenTypeHint: String, clientID: String? = nil, attempts: Int = 0,
                nextAttemptAt: Date, lastError: String? = nil, createdAt: Date) {
        self.id = id; self.provider = provider; self.sealedToken = sealedToken; self.tokenTypeHint = tokenTypeHint
        self.clientID = clientID
        self.attempts = attempts; self.nextAttemptAt = nextAttemptAt; self.lastError = lastError; self.createdAt = createdAt
    }
}

public protocol PendingRevocationStore: Sendable {
    func enqueue(_ revocation: PendingRevocation) async throws
    /// Revocations due at `now`, oldest first.
    func due(now: Date, limit: Int) async throws -> [PendingRevocation]
    /// Takes up to `limit` due revocations, oldest first, for one worker: in the same statement their
    /// next attempt moves to `now + claimFor`, so a concurrent claim (another process) never gets the same
    /// rows. The worker then completes or reschedules each; a worker that dies leaves them due again later.
    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [PendingRevocation]
    /// Records a failed attempt and when to try next.
    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    /// Removes a revocation that succeeded.
    func complete(id: String) async throws -> Bool
}
