import Foundation

/// Sign in with Google: an OIDC provider with Google's issuer (both forms) and an optional Workspace domain.
public enum GoogleSettings {
    public static let issuer = "https://accounts.google.com"
    /// Some Google id_tokens carry the issuer without the scheme.
    public static let bareIssuer = "accounts.google.com"
    public static let discoveryURL = URL(string: "https://accounts.google.com/.well-known/openid-configuration")!

    /// Settings for Google; every endpoint is overridable (a simulator, a proxy).
    public static func make(clientID: String, clientSecret: String, hostedDomain: String? = nil,
                            scopes: [String] = ["openid", "email", "profile"], discoveryURL: URL? = nil,
                            authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil, jwksURI: URL? = nil,
                            issuer: String = GoogleSettings.issuer) -> OIDCSettings {
        OIDCSettings(id: "google", displayName: "Google", issuer: issuer, clientID: clientID, clientSecret: clientSecret,
                     scopes: scopes, discoveryURL: discoveryURL ?? Self.discoveryURL, authorizationEndpoint: authorizationEndpoint,
                     tokenEndpoint: tokenEndpoint, jwksURI: jwksURI, extraIssuers: [Self.issuer, Self.bareIssuer].filter { $0 != issuer },
                     hostedDomain: hostedDomain)
    }
}

extension OIDCProvider {
    /// Google as an ``OIDCProvider`` of kind `.google`.
    public static func google(_ settings: OIDCSettings, transport: any ProviderTransport,
                              clock: @escaping @Sendable () -> Date = { Date() }) -> OIDCProvider {
        OIDCProvider(settings: settings, kind: .google, transport: transport, clock: clock)
    }
}
