import Foundation

/// A signing key with its rotation schedule. Storage of these records belongs to another layer;
/// this type only carries what the choice of key needs.
public struct ScheduledSigningKey: Sendable {
    /// The key (its `keyID` is the RFC 7638 thumbprint).
    public let key: SigningKey
    /// When the key was created.
    public let createdAt: Date
    /// From when it may sign. Set it after `createdAt` so relying parties see the key in our JWKS
    /// (and cache it) before any token signed with it reaches them.
    public let activatesAt: Date
    /// From when it no longer signs (`nil`: not retired).
    public let retiredAt: Date?
    /// Until when it stays in the JWKS, so tokens it signed remain verifiable (`nil`: indefinitely).
    public let publishUntil: Date?

    public var keyID: String { key.keyID }

    public init(key: SigningKey, createdAt: Date, activatesAt: Date, retiredAt: Date? = nil, publishUntil: Date? = nil) {
        self.key = key
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiredAt = retiredAt
        self.publishUntil = publishUntil
    }

    /// Whether the key may sign at `now`.
    public func isActive(at now: Date) -> Bool {
        activatesAt <= now && (retiredAt.map { now < $0 } ?? true)
    }

    /// Whether the key belongs in the JWKS at `now` (before activation too: publish before signing).
    public func isPublished(at now: Date) -> Bool {
        publishUntil.map { now < $0 } ?? true
    }
}

/// Our signing keys and the rules for rotating them: which key signs now, which keys are published.
public struct SigningKeySet: Sendable {
    /// All keys, in the order given.
    public let keys: [ScheduledSigningKey]

    public init(_ keys: [ScheduledSigningKey]) {
        self.keys = keys
    }

    /// The key to sign with at `now`: the most recently activated key that is active (of `algorithm`,
    /// when given), ties broken by creation time; `nil` if none is active (the caller should then create one).
    public func currentSigningKey(at now: Date = Date(), algorithm: JWSAlgorithm? = nil) -> ScheduledSigningKey? {
        keys.filter { $0.isActive(at: now) && (algorithm == nil || $0.key.algorithm == algorithm) }
            .max { ($0.activatesAt, $0.createdAt) < ($1.activatesAt, $1.createdAt) }
    }

    /// Keys to publish at `now`, newest first.
    public func publishedKeys(at now: Date = Date()) -> [ScheduledSigningKey] {
        keys.filter { $0.isPublished(at: now) }.sorted { $0.createdAt > $1.createdAt }
    }

    /// The public JWKS to serve at our `jwks_uri`.
    public func publicJWKS(at now: Date = Date()) -> JWKSet {
        JWKSet(keys: publishedKeys(at: now).map(\.key.publicJWK))
    }

    /// The published keys as a verification set, for checking tokens we issued ourselves.
    public func verificationKeys(at now: Date = Date()) -> VerificationKeySet {
        VerificationKeySet(keys: publishedKeys(at: now).map(\.key.verificationKey))
    }
}
