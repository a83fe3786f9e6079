import Foundation

/// An authorization code, stored by the SHA-256 of its value. Single use, short-lived (≤ 60 s).
public struct AuthorizationCode: Sendable, Equatable {
    public var hash: TokenHash
    public var clientId: String
    public var userId: String
    /// The `redirect_uri` the authorization request carried, which the token request must repeat; empty
    /// when the request had none (the client's only registered URI was used; RFC 6749 §4.1.3).
    public var redirectURI: String
    /// Space-separated granted scopes.
    public var scope: String
    public var nonce: String?
    /// The S256 PKCE challenge sent with the authorization request, if any.
    public var codeChallenge: String?
    public var authTime: Date
    /// Authentication methods of the sign-in (`pwd`, `apple`, …) for the ID token's `amr`.
    public var authMethods: [String]
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// The refresh-token family (and access tokens) issued from this code, so reuse can revoke them.
    public var issuedFamilyId: String?
    /// The DPoP key thumbprint the authorization request named (`dpop_jkt`, RFC 9449 §10): the token
    /// request must carry a proof made with that key.
    public var dpopJKT: String?
    /// The APIs the authorization request named (`resource`, RFC 8707): the token request may ask for these only.
    public var resources: [String]

    public init(hash: TokenHash, clientId: String, userId: String, redirectURI: String, scope: String, nonce: String? = nil,
                codeChallenge: String? = nil, authTime: Date, authMethods: [String], createdAt: Date, expiresAt: Date,
                usedAt: Date? = nil, issuedFamilyId: String? = nil, dpopJKT: String? = nil, resources: [String] = []) {
        self.hash = hash; self.clientId = clientId; self.userId = userId; self.redirectURI = redirectURI; self.scope = scope
        self.nonce = nonce; self.codeChallenge = codeChallenge; self.authTime = authTime; self.authMethods = authMethods
        self.createdAt = createdAt; self.expiresAt = expiresAt; self.usedAt = usedAt; self.issuedFamilyId = issuedFamilyId
        self.dpopJKT = dpopJKT; self.resources = resources
    }
}

/// What presenting a code found.
public enum CodeRedemption: Sendable, Equatable {
    /// First use: the code, now marked used.
    case redeemed(AuthorizationCode)
    /// The code was used before: a replay. Whatever it issued must be revoked.
    case alreadyUsed(AuthorizationCode)
    /// Unknown or expired.
    case invalid
}

public protocol AuthorizationCodeStore: Sendable {
    func create(_ code: AuthorizationCode) async throws
    /// Marks the code used atomically (two concurrent redemptions: exactly one `.redeemed`). In the
    /// same statement it records `familyId`, the refresh family the tokens are about to be issued in,
    /// so a replay that arrives while they are being issued already finds the family to revoke; and it
    /// keeps the used code until `retainUntil` (when later than its expiry), so later replays still find it.
    func redeem(hash: TokenHash, now: Date, familyId: String?, retainUntil: Date?) async throws -> CodeRedemption
    /// Records (replaces) the family issued from a redeemed code.
    func attachFamily(hash: TokenHash, familyId: String) async throws
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}

extension AuthorizationCodeStore {
    /// Marks the code used without recording a family or extending its life.
    public func redeem(hash: TokenHash, now: Date) async throws -> CodeRedemption {
        try await redeem(hash: hash, now: now, familyId: nil, retainUntil: nil)
    }
}
