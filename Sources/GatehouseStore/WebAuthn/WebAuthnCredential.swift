import Foundation

/// A registered WebAuthn credential (a passkey or a security key) of one user.
public struct WebAuthnCredential: Sendable, Equatable {
    /// The credential id the authenticator chose; unique across all users.
    public var credentialID: [UInt8]
    public var userID: String
    /// The COSE_Key bytes as the authenticator sent them.
    public var publicKey: [UInt8]
    /// The COSE algorithm the key is bound to (-7 ES256, -8 EdDSA, -257 RS256).
    public var algorithm: Int
    /// The last signature counter seen; 0 for authenticators that keep none (synced passkeys).
    public var signCount: UInt32
    /// BE at registration: the credential may be synced (a passkey in a password manager).
    public var backupEligible: Bool
    /// BS at the last use: the credential is synced now.
    public var backedUp: Bool
    /// User verification was performed at registration.
    public var userVerified: Bool
    public var aaguid: [UInt8]
    /// `none`, `self` or `basic`: what the attestation proved.
    public var attestation: String
    /// Transports the browser reported (`internal`, `hybrid`, `usb`, …), as hints for later ceremonies.
    public var transports: [String]
    /// The name the user sees and may change.
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(credentialID: [UInt8], userID: String, publicKey: [UInt8], algorithm: Int, signCount: UInt32,
                backupEligible: Bool, backedUp: Bool, userVerified: Bool, aaguid: [UInt8], attestation: String,
                transports: [String], name: String, createdAt: Date, lastUsedAt: Date? = nil) {
        self.credentialID = credentialID
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.userVerified = userVerified
        self.aaguid = aaguid
        self.attestation = attestation
        self.transports = transports
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A challenge handed to a browser or app for one WebAuthn ceremony, stored by hash, single use.
public struct WebAuthnChallenge: Sendable, Equatable {
    /// The ceremony a challenge may finish.
    public enum Ceremony: String, Sendable {
        case registration, authentication
    }

    /// SHA-256 of the challenge bytes.
    public var challengeHash: TokenHash
    public var ceremony: Ceremony
    /// The user it was issued to; nil for a discoverable-credential sign-in (the user is not known yet).
    public var userID: String?
    /// SHA-256 of the secret the asking flow holds (a cookie, a native request id): a challenge
    /// answers only the flow that asked for it.
    public var flowBinding: TokenHash
    /// Whether the ceremony must prove user verification.
    public var requireUserVerification: Bool
    public var createdAt: Date
    public var expiresAt: Date

    public init(challengeHash: TokenHash, ceremony: Ceremony, userID: String?, flowBinding: TokenHash,
                requireUserVerification: Bool, createdAt: Date, expiresAt: Date) {
        self.challengeHash = challengeHash
        self.ceremony = ceremony
        self.userID = userID
        self.flowBinding = flowBinding
        self.requireUserVerification = requireUserVerification
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
