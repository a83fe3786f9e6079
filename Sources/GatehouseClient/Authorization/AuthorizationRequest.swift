import Foundation

/// One authorization request (RFC 6749 §4.1.1 + PKCE + OIDC nonce) and the secrets needed to
/// finish it. Keep it until the callback arrives; it is `Codable` so an app killed while the
/// browser is open can persist it.
public struct AuthorizationRequest: Codable, Equatable, Sendable {
    /// The URL to open in the system browser.
    public let url: URL
    /// The `state` sent; the callback must carry exactly this value.
    public let state: String
    /// The `nonce` sent (OpenID Connect), checked against the ID token.
    public let nonce: String?
    /// The PKCE verifier, sent with the code exchange.
    public let codeVerifier: String
    /// The `redirect_uri` sent; the exchange repeats it and the callback must match it.
    public let redirectURI: URL
    /// The issuer the callback's `iss` must equal (RFC 9207), when known.
    public let expectedIssuer: String?
    /// Whether a callback without `iss` is rejected (the provider advertises RFC 9207 support).
    public let requiresIssuerParameter: Bool
    /// The scopes requested.
    public let scopes: [String]

    public init(
        url: URL, state: String, nonce: String?, codeVerifier: String, redirectURI: URL,
        expectedIssuer: String?, requiresIssuerParameter: Bool, scopes: [String]
    ) {
        self.url = url
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.expectedIssuer = expectedIssuer
        self.requiresIssuerParameter = requiresIssuerParameter
        self.scopes = scopes
    }

    /// Builds a code + PKCE S256 request with a fresh `state` (and `nonce` when `includeNonce`).
    ///
    /// - Parameters:
    ///   - additionalParameters: e.g. `prompt`, `login_hint`, `response_mode`. They cannot
    ///     override the security parameters (state, nonce, PKCE, client_id, redirect_uri,
    ///     response_type): those are set last and duplicates are dropped.
    public static func make(
        metadata: ProviderMetadata, client: ClientConfiguration, scopes: [String],
        includeNonce: Bool = true, additionalParameters: [String: String] = [:]
    ) -> AuthorizationRequest {
        let pkce = PKCE()
        let state = RandomString.base64URL(byteCount: 32)
        let nonce = includeNonce ? RandomString.base64URL(byteCount: 32) : nil
        var security: [(String, String)] = [
            ("response_type", "code"),
            ("client_id", client.clientID),
            ("redirect_uri", client.redirectURI.absoluteString),
            ("state", state),
            ("code_challenge", pkce.challenge),
            ("code_challenge_method", pkce.method),
        ]
        if !scopes.isEmpty { security.insert(("scope", scopes.joined(separator: " ")), at: 3) }
        if let nonce { security.append(("nonce", nonce)) }
        let reserved = Set(security.map(\.0) + ["nonce", "code_challenge", "code_challenge_method"])
        let extra = additionalParameters.filter { !reserved.contains($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return AuthorizationRequest(
            url: metadata.authorizationEndpoint.appendingQuery(security + extra),
            state: state, nonce: nonce, codeVerifier: pkce.verifier, redirectURI: client.redirectURI,
            expectedIssuer: metadata.issuer,
            requiresIssuerParameter: metadata.authorizationResponseIssParameterSupported ?? false,
            scopes: scopes
        )
    }

    /// Parses the redirect that ended this request; see `AuthorizationCallback.parse`.
    public func parseCallback(_ url: URL) throws -> AuthorizationCallback {
        try AuthorizationCallback.parse(url, for: self)
    }
}
