import Foundation

/// A signed-in browser or app session.
///
/// The session id itself lives only in the user's cookie; the store keys the session by its
/// SHA-256 hash, so reading the database does not let anyone resume a session.
public struct Session: Sendable, Equatable {
    public var idHash: TokenHash
    public var userId: String
    public var createdAt: Date
    public var lastSeenAt: Date
    /// The session ends at this time unless touched (sliding idle timeout).
    public var idleExpiresAt: Date
    /// The session ends at this time whatever happens (absolute timeout).
    public var absoluteExpiresAt: Date
    public var ip: String?
    public var userAgent: String?
    /// How the user authenticated, as AMR-style tokens without spaces: `"pwd"`, `"apple"`, …
    public var authMethods: [String]

    public init(idHash: TokenHash, userId: String, createdAt: Date, lastSeenAt: Date? = nil,
                idleExpiresAt: Date, absoluteExpiresAt: Date, ip: String? = nil, userAgent: String? = nil,
                authMethods: [String]) {
        self.idHash = idHash
        self.userId = userId
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt ?? createdAt
        self.idleExpiresAt = idleExpiresAt
        self.absoluteExpiresAt = absoluteExpiresAt
        self.ip = ip
        self.userAgent = userAgent
        self.authMethods = authMethods
    }

    /// Valid strictly before both expiry times.
    public func isValid(at now: Date) -> Bool {
        now < idleExpiresAt && now < absoluteExpiresAt
    }
}
