import Foundation

/// Lifetimes and names for the authorization server.
public struct OAuthSettings: Sendable {
    /// The `iss` of every token and the discovery document (the public URL, no trailing slash).
    public var issuer: String
    public var accessTokenLifetime: TimeInterval
    public var idTokenLifetime: TimeInterval
    public var codeLifetime: TimeInterval
    /// A refresh-token family's absolute lifetime; rotation never extends it.
    public var refreshTokenLifetime: TimeInterval
    /// How long a just-rotated refresh token may still be presented (0: never; any reuse revokes the family).
    public var refreshGraceWindow: TimeInterval
    /// The `aud` of access tokens (the APIs that accept them).
    public var accessTokenAudience: String
    /// API scopes clients may be allowed beyond the OpenID ones.
    public var apiScopes: [String]
    /// DPoP proofs must carry a server nonce (RFC 9449 §8, §9): a proof made ahead of time, or
    /// copied off a device, is refused once the nonce it carries is older than two nonce periods.
    public var dpopNonceRequired = false
    /// Every client must push its authorization requests (RFC 9126 §5, `require_pushed_authorization_requests`
    /// in discovery); false: only clients registered with it must.
    public var requirePushedAuthorizationRequests = false
    /// The APIs (absolute URIs) a client may name with `resource` (RFC 8707): an access token asked for
    /// one has it alone as `aud`, so each API accepts only the tokens meant for it.
    public var resources: [String] = []

    /// The registered API `resource` names (nil when none was asked for), or `invalid_target`.
    public func resource(_ requested: String?) throws(OAuthError) -> String? {
        guard let requested, !requested.isEmpty else { return nil }
        guard resources.contains(requested) else {
            throw OAuthError(.invalidTarget, "The resource \(requested) is not an API registered with this server.")
        }
        return requested
    }

    public init(issuer: String, accessTokenLifetime: TimeInterval = 600, idTokenLifetime: TimeInterval = 600,
                codeLifetime: TimeInterval = 60, refreshTokenLifetime: TimeInterval = 30 * 86_400,
                refreshGraceWindow: TimeInterval = 0, accessTokenAudience: String? = nil, apiScopes: [String] = []) {
        self.issuer = issuer; self.accessTokenLifetime = accessTokenLifetime; self.idTokenLifetime = idTokenLifetime
        self.codeLifetime = min(codeLifetime, 60); self.refreshTokenLifetime = refreshTokenLifetime
        self.refreshGraceWindow = refreshGraceWindow; self.accessTokenAudience = accessTokenAudience ?? issuer
        self.apiScopes = apiScopes
    }
}
