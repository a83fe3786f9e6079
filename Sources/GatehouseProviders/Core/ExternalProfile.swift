import GatehouseCrypto

/// Who signed in at a provider, after every check passed. Keyed by (provider, subject); the email is
/// information, never a key.
public struct ExternalProfile: Sendable, Equatable {
    public var provider: String
    /// The provider's stable id (`sub`; GitHub's numeric user id as a string).
    public var subject: String
    public var email: String?
    public var emailVerified: Bool
    /// An Apple private-relay address (`…@privaterelay.appleid.com`): never used to merge accounts.
    public var isPrivateRelay: Bool
    public var name: String?
    /// The verified id_token claims (OIDC, Apple) or the profile JSON (GitHub).
    public var rawClaims: [String: JSONValue]
    /// A refresh token the provider issued, for revocation later (Apple).
    public var refreshToken: String?

    public init(provider: String, subject: String, email: String?, emailVerified: Bool, isPrivateRelay: Bool = false,
                name: String?, rawClaims: [String: JSONValue], refreshToken: String? = nil) {
        self.provider = provider; self.subject = subject; self.email = email; self.emailVerified = emailVerified
        self.isPrivateRelay = isPrivateRelay; self.name = name; self.rawClaims = rawClaims; self.refreshToken = refreshToken
    }
}
