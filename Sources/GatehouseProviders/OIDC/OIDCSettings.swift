import Foundation

/// A generic OpenID Connect provider, configured by its issuer (endpoints from discovery, each overridable).
public struct OIDCSettings: Sendable, Equatable {
    /// The name in URLs and stored identities (`okta`, `keycloak`…): lower-case letters, digits, `-`.
    public var id: String
    public var displayName: String
    /// The `issuer`; id_tokens must carry it (or one of ``extraIssuers``).
    public var issuer: String
    public var clientID: String
    public var clientSecret: String
    public var scopes: [String]
    /// Defaults to `{issuer}/.well-known/openid-configuration`.
    public var discoveryURL: URL?
    /// Overrides for what discovery would say (tests, demo, providers with broken discovery).
    public var authorizationEndpoint: URL?
    public var tokenEndpoint: URL?
    public var jwksURI: URL?
    public var userinfoEndpoint: URL?
    /// Other `iss` forms the provider uses (Google: `accounts.google.com`).
    public var extraIssuers: [String]
    /// Further accepted `aud` values besides the client id.
    public var extraAudiences: [String]
    /// Google Workspace: require this `hd` claim.
    public var hostedDomain: String?

    public init(id: String, displayName: String, issuer: String, clientID: String, clientSecret: String,
                scopes: [String] = ["openid", "email", "profile"], discoveryURL: URL? = nil, authorizationEndpoint: URL? = nil,
                tokenEndpoint: URL? = nil, jwksURI: URL? = nil, userinfoEndpoint: URL? = nil, extraIssuers: [String] = [],
                extraAudiences: [String] = [], hostedDomain: String? = nil) {
        self.id = id; self.displayName = displayName; self.issuer = issuer; self.clientID = clientID
        self.clientSecret = clientSecret; self.scopes = scopes; self.discoveryURL = discoveryURL
        self.authorizationEndpoint = authorizationEndpoint; self.tokenEndpoint = tokenEndpoint; self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint; self.extraIssuers = extraIssuers; self.extraAudiences = extraAudiences
        self.hostedDomain = hostedDomain
    }

    /// The discovery document's URL.
    public var resolvedDiscoveryURL: URL? {
        discoveryURL ?? URL(string: (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration")
    }
}
