import Foundation

/// What a provider proved about a person, verified by the Providers layer before it gets here (an ID
/// token, userinfo, a GitHub profile): the input of every account-linking decision.
public struct VerifiedExternalIdentity: Sendable, Equatable, Codable {
    /// The configured provider name (`apple`, `google`, `github`, an OIDC provider's name).
    public var provider: String
    /// The provider's stable subject: identities are keyed by (provider, subject), never by email.
    public var subject: String
    public var email: String?
    public var emailVerified: Bool
    /// An Apple private-relay address: never used to merge accounts.
    public var isPrivateRelay: Bool
    public var name: String?
    /// The provider's refresh token, sealed (``ProviderTokenSealing``), kept for revocation.
    public var sealedRefreshToken: [UInt8]?
    /// The client the refresh token was issued to (native Apple: the app's bundle id); nil for the
    /// provider's configured web client.
    public var tokenClientID: String?

    public init(provider: String, subject: String, email: String?, emailVerified: Bool, isPrivateRelay: Bool, name: String?,
                sealedRefreshToken: [UInt8]? = nil, tokenClientID: String? = nil) {
        self.provider = provider; self.subject = subject; self.email = email; self.emailVerified = emailVerified
        self.isPrivateRelay = isPrivateRelay; self.name = name; self.sealedRefreshToken = sealedRefreshToken
        self.tokenClientID = tokenClientID
    }
}

/// How provider tokens are sealed at rest: the associated data binds a sealed token to its identity, so
/// it cannot be moved to another row.
public enum ProviderTokenSealing {
    public static func label(provider: String, subject: String) -> String { "provider-token:\(provider):\(subject)" }
}
