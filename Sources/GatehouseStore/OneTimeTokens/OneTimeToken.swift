import Foundation

/// What a one-time token may be used for. Consumption checks the purpose, so a password-reset
/// token can never be redeemed as, say, a hand-off token.
public struct TokenPurpose: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let passwordReset: TokenPurpose = "password_reset"
    public static let emailVerify: TokenPurpose = "email_verify"
    /// F2: system browser → app web view hand-off.
    public static let handoff: TokenPurpose = "handoff"
    /// A change of a signed-in account's address, proven by the link mailed to the new one (payload: the address).
    public static let emailChange: TokenPurpose = "email_change"
}

/// A single-use secret sent to a user (link in an email, custom-scheme redirect), stored by hash.
public struct OneTimeToken: Sendable, Equatable {
    /// SHA-256 of the token the user holds.
    public var hash: TokenHash
    public var purpose: TokenPurpose
    public var userId: String
    public var createdAt: Date
    /// Unusable from this time on.
    public var expiresAt: Date
    /// Set when consumed; a consumed token is never returned by `consume` again.
    public var usedAt: Date?
    /// Small JSON object with what the flow needs afterwards (e.g. the PKCE-style challenge a
    /// hand-off must be redeemed with, or the new email being verified).
    public var payload: String

    public init(hash: TokenHash, purpose: TokenPurpose, userId: String, createdAt: Date, expiresAt: Date,
                usedAt: Date? = nil, payload: String = "{}") {
        self.hash = hash
        self.purpose = purpose
        self.userId = userId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.payload = payload
    }
}
