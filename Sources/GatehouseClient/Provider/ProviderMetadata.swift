import Foundation

/// Where a provider's endpoints are and what it supports: OIDC Discovery / RFC 8414 metadata,
/// or filled in by hand for providers without discovery (GitHub).
public struct ProviderMetadata: Codable, Equatable, Sendable {
    /// The issuer identifier. Required for OpenID Connect (ID tokens and the `iss` callback
    /// parameter are checked against it); `nil` for plain OAuth providers such as GitHub.
    public var issuer: String?
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    public var userinfoEndpoint: URL?
    public var revocationEndpoint: URL?
    public var jwksURI: URL?
    public var endSessionEndpoint: URL?
    public var scopesSupported: [String]?
    public var grantTypesSupported: [String]?
    public var codeChallengeMethodsSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 9207: when `true`, a callback without `iss` is rejected.
    public var authorizationResponseIssParameterSupported: Bool?

    public init(
        issuer: String?, authorizationEndpoint: URL, tokenEndpoint: URL, userinfoEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil, jwksURI: URL? = nil, endSessionEndpoint: URL? = nil,
        scopesSupported: [String]? = nil, grantTypesSupported: [String]? = nil,
        codeChallengeMethodsSupported: [String]? = nil, idTokenSigningAlgValuesSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.endSessionEndpoint = endSessionEndpoint
        self.scopesSupported = scopesSupported
        self.grantTypesSupported = grantTypesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case jwksURI = "jwks_uri"
        case endSessionEndpoint = "end_session_endpoint"
        case scopesSupported = "scopes_supported"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
    }
}

extension ProviderMetadata {
    /// GitHub's OAuth app endpoints (not OpenID Connect: no issuer, no ID token; read the user
    /// from `https://api.github.com/user` with the access token).
    public static let github = ProviderMetadata(
        issuer: nil,
        authorizationEndpoint: URL(string: "https://github.com/login/oauth/authorize")!,
        tokenEndpoint: URL(string: "https://github.com/login/oauth/access_token")!,
        userinfoEndpoint: URL(string: "https://api.github.com/user")!,
        codeChallengeMethodsSupported: ["S256"]
    )

    /// Gatehouse's endpoints under `base`, for when discovery is not wanted (tests, offline setup).
    /// The issuer is `base` without a trailing slash.
    public static func gatehouse(base: URL) -> ProviderMetadata {
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        func endpoint(_ path: String) -> URL { URL(string: root + path)! }
        return ProviderMetadata(
            issuer: root,
            authorizationEndpoint: endpoint("/oauth/authorize"),
            tokenEndpoint: endpoint("/oauth/token"),
            userinfoEndpoint: endpoint("/oauth/userinfo"),
            revocationEndpoint: endpoint("/oauth/revoke"),
            jwksURI: endpoint("/oauth/jwks"),
            codeChallengeMethodsSupported: ["S256"],
            authorizationResponseIssParameterSupported: true
        )
    }
}
