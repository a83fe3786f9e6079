import Foundation

/// A JWS signing key of the authorization server, as kept for rotation and JWKS publishing.
///
/// Lifecycle: created → active from `activatesAt` (so the new public key can be published
/// before it signs) → retired at `retiredAt` (no longer signs) → published until
/// `publishUntil` (tokens it signed can still be verified) → deleted.
public struct SigningKey: Sendable, Equatable {
    /// Key id (`kid` header); chosen by the caller, unique.
    public var kid: String
    /// JWS algorithm, e.g. `"ES256"` or `"RS256"`.
    public var algorithm: String
    /// The public key as a JWK JSON object string (what JWKS serves).
    public var publicJWK: String
    /// The private key, encrypted by the caller; the store never sees it in the clear.
    public var encryptedPrivateKey: [UInt8]
    public var createdAt: Date
    /// From this time on the key may sign.
    public var activatesAt: Date
    /// When set, the key no longer signs from this time on.
    public var retiredAt: Date?
    /// When set, the key is dropped from JWKS (and may be deleted) after this time.
    public var publishUntil: Date?

    public init(kid: String, algorithm: String, publicJWK: String, encryptedPrivateKey: [UInt8],
                createdAt: Date, activatesAt: Date, retiredAt: Date? = nil, publishUntil: Date? = nil) {
        self.kid = kid
        self.algorithm = algorithm
        self.publicJWK = publicJWK
        self.encryptedPrivateKey = encryptedPrivateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiredAt = retiredAt
        self.publishUntil = publishUntil
    }
}
