import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to one provider's endpoints on behalf of one client: builds authorization requests,
/// exchanges codes, refreshes, revokes, reads userinfo and validates ID tokens.
///
/// Works with Gatehouse and with any standards provider (Google, Apple, GitHub-style OAuth).
/// Stateless: keep tokens in an `AuthState`.
///
/// With a `dpopKey` (RFC 9449) every token request, refresh, revocation and userinfo read carries a proof
/// made with that key, so the tokens issued are bound to it (`token_type` `DPoP`); a `use_dpop_nonce`
/// refusal is retried once with the server's nonce. ``authorize(_:accessToken:)`` prepares an API request.
public struct OAuthClient: Sendable {
    public let metadata: ProviderMetadata
    public let configuration: ClientConfiguration
    /// Create one `URLSessionTransport` per app and share it: each owns a `URLSession`.
    public let transport: any HTTPTransport
    /// Verifies ID-token signatures. Defaults to the CryptoKit/Security verifier on Apple
    /// platforms; on Linux there is no default and the caller injects one.
    public let signatureVerifier: (any IDTokenSignatureVerifier)?
    /// Clock, injectable for tests.
    public let now: @Sendable () -> Date
    /// The DPoP key's proofs and the servers' nonces; nil: Bearer tokens.
    public let dpop: DPoPSession?

    public init(
        metadata: ProviderMetadata, configuration: ClientConfiguration,
        transport: any HTTPTransport = URLSessionTransport(),
        signatureVerifier: (any IDTokenSignatureVerifier)? = OAuthClient.platformSignatureVerifier,
        dpopKey: (any DPoPKey)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.metadata = metadata
        self.configuration = configuration
        self.transport = transport
        self.signatureVerifier = signatureVerifier
        self.dpop = dpopKey.map(DPoPSession.init(key:))
        self.now = now
    }

    /// Discovers `issuer`'s metadata (checking its `issuer`) and returns a client for it.
    public static func discover(
        issuer: URL, configuration: ClientConfiguration, transport: any HTTPTransport = URLSessionTransport(),
        signatureVerifier: (any IDTokenSignatureVerifier)? = OAuthClient.platformSignatureVerifier,
        dpopKey: (any DPoPKey)? = nil
    ) async throws -> OAuthClient {
        let metadata = try await ProviderDiscovery.discover(issuer: issuer, transport: transport)
        return OAuthClient(metadata: metadata, configuration: configuration, transport: transport, signatureVerifier: signatureVerifier,
                           dpopKey: dpopKey)
    }

    /// The verifier available without injection: CryptoKit/Security on Apple platforms, none elsewhere.
    public static var platformSignatureVerifier: (any IDTokenSignatureVerifier)? {
        #if canImport(CryptoKit) && canImport(Security)
        return AppleIDTokenSignatureVerifier()
        #else
        return nil
        #endif
    }

    // MARK: Authorization

    /// A code + PKCE S256 authorization request; open `request.url` in the system browser.
    public func authorizationRequest(
        scopes: [String], includeNonce: Bool = true, additionalParameters: [String: String] = [:]
    ) -> AuthorizationRequest {
        AuthorizationRequest.make(
            metadata: metadata, client: configuration, scopes: scopes,
            includeNonce: includeNonce, additionalParameters: additionalParameters
        )
    }

    // MARK: Token endpoint

    /// Exchanges the callback's code (RFC 6749 §4.1.3 + RFC 7636 §4.5).
    ///
    /// Does not validate the ID token; use `signIn(callbackURL:request:)` for the whole flow, or
    /// call `validateIDToken` yourself.
    public func exchangeCode(_ callback: AuthorizationCallback, for request: AuthorizationRequest) async throws -> TokenResponse {
        try await tokenRequest([
            ("grant_type", "authorization_code"),
            ("code", callback.code),
            ("redirect_uri", request.redirectURI.absoluteString),
            ("code_verifier", request.codeVerifier),
        ])
    }

    /// Finishes a browser sign-in: parses the callback, exchanges the code, and validates the
    /// ID token (when one is returned) against the request's nonce.
    public func signIn(callbackURL: URL, request: AuthorizationRequest, signatureCheck: IDTokenSignatureCheck? = nil) async throws -> SignInResult {
        let callback = try request.parseCallback(callbackURL)
        let response = try await exchangeCode(callback, for: request)
        var claims: IDTokenClaims?
        if let idToken = response.idToken {
            claims = try await validateIDToken(idToken, nonce: request.nonce, signatureCheck: signatureCheck)
        } else if request.scopes.contains("openid") {
            // OIDC Core §3.1.3.3: an `openid` request must get an ID token; its absence may mean
            // a downgraded or misrouted response, and the nonce would go unchecked.
            throw IDTokenError.missingClaim("id_token")
        }
        return SignInResult(tokens: response, idTokenClaims: claims)
    }

    /// Resource-owner password grant (RFC 6749 §4.3), for first-party login forms only.
    public func passwordGrant(username: String, password: String, scopes: [String] = []) async throws -> TokenResponse {
        var pairs = [("grant_type", "password"), ("username", username), ("password", password)]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try await tokenRequest(pairs)
    }

    /// Refresh (RFC 6749 §6). Store the response's `refreshToken` when present: it may have rotated.
    public func refresh(refreshToken: String, scopes: [String]? = nil) async throws -> TokenResponse {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try await tokenRequest(pairs)
    }

    /// Revokes a token (RFC 7009). Throws `ClientSetupError.endpointMissing` if the provider has none.
    public func revoke(token: String, hint: TokenTypeHint? = nil) async throws {
        guard let endpoint = metadata.revocationEndpoint else { throw ClientSetupError.endpointMissing("revocation_endpoint") }
        var pairs = [("token", token)]
        if let hint { pairs.append(("token_type_hint", hint.rawValue)) }
        var request = URLRequest.formPost(endpoint, [])
        configuration.authentication.apply(clientID: configuration.clientID, to: &pairs, request: &request)
        request.httpBody = FormBody.encode(pairs)
        let (data, response) = try await send(request)
        // RFC 7009 §2.2: 200 whether or not the token was valid; errors use the §5.2 format.
        guard response.isSuccess else { throw Self.error(from: data, response) }
    }

    /// Reads the userinfo endpoint with `accessToken`: as a Bearer token, or with a DPoP key as
    /// `Authorization: DPoP` with a proof carrying the token's hash.
    public func userInfo(accessToken: String) async throws -> [String: JSONValue] {
        guard let endpoint = metadata.userinfoEndpoint else { throw ClientSetupError.endpointMissing("userinfo_endpoint") }
        var request = URLRequest(url: endpoint)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await sendAuthorized(request, accessToken: accessToken)
        guard response.isSuccess else {
            if response.statusCode == 401 { throw OAuthError(code: .invalidToken, httpStatus: 401) }
            throw Self.error(from: data, response)
        }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            throw HTTPTransportError.invalidBody("userinfo is not a JSON object")
        }
        return object
    }

    // MARK: Resource requests

    /// `request` made ready for an API (a resource server): `Authorization: Bearer <token>`, or with a DPoP
    /// key `Authorization: DPoP <token>` and a fresh proof of this request with the token's hash (`ath`,
    /// RFC 9449 §7.1). Sign each request anew: a proof is single-use.
    public func authorize(_ request: URLRequest, accessToken: String) async throws -> URLRequest {
        if let dpop { return try await dpop.sign(request, accessToken: accessToken) }
        var request = request
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// Sends `request` authorized with `accessToken` (see ``authorize(_:accessToken:)``); with a DPoP key a
    /// resource's 401 `use_dpop_nonce` is retried once with its nonce.
    public func sendAuthorized(_ request: URLRequest, accessToken: String) async throws -> (Data, HTTPURLResponse) {
        if let dpop { return try await dpop.send(request, accessToken: accessToken, over: transport) }
        return try await transport.send(try await authorize(request, accessToken: accessToken))
    }

    // MARK: Ending the session

    /// The RP-initiated logout URL (discovered `end_session_endpoint`) for this client; see `EndSessionRequest`.
    public func endSessionRequest(idTokenHint: String?, postLogoutRedirectURI: URL?, state: String? = nil) throws -> EndSessionRequest {
        try EndSessionRequest.make(metadata: metadata, clientID: configuration.clientID, idTokenHint: idTokenHint,
                                   postLogoutRedirectURI: postLogoutRedirectURI, state: state)
    }

    // MARK: ID token

    /// Downloads the provider's JWKS.
    public func fetchJWKS() async throws -> JWKS {
        guard let jwksURI = metadata.jwksURI else { throw ClientSetupError.endpointMissing("jwks_uri") }
        var request = URLRequest(url: jwksURI)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await transport.send(request)
        guard response.isSuccess else { throw HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt) }
        do { return try JSONDecoder().decode(JWKS.self, from: data) }
        catch { throw HTTPTransportError.invalidBody("JWKS: \(error)") }
    }

    /// Validates an ID token's signature and claims for this client.
    ///
    /// - Parameter signatureCheck: `nil` means "verify with `signatureVerifier` against the
    ///   provider's JWKS", and throws `IDTokenError.noSignatureVerifier` when there is no verifier.
    public func validateIDToken(_ idToken: String, nonce: String?, signatureCheck: IDTokenSignatureCheck? = nil) async throws -> IDTokenClaims {
        guard let issuer = metadata.issuer else { throw ClientSetupError.endpointMissing("issuer") }
        let check: IDTokenSignatureCheck
        if let signatureCheck {
            check = signatureCheck
        } else if let signatureVerifier {
            check = .verify(signatureVerifier, jwks: try await fetchJWKS())
        } else {
            throw IDTokenError.noSignatureVerifier
        }
        let validator = IDTokenValidator(
            issuer: issuer, clientID: configuration.clientID,
            allowedAlgorithms: metadata.idTokenSigningAlgValuesSupported.map(Set.init) ?? IDTokenValidator.defaultAlgorithms,
            now: now
        )
        return try validator.validate(idToken, nonce: nonce, signatureCheck: check)
    }

    // MARK: Plumbing

    func tokenRequest(_ grant: [(String, String)]) async throws -> TokenResponse {
        var pairs = grant
        var request = URLRequest.formPost(metadata.tokenEndpoint, [])
        configuration.authentication.apply(clientID: configuration.clientID, to: &pairs, request: &request)
        request.httpBody = FormBody.encode(pairs)
        let (data, response) = try await send(request)
        // GitHub reports errors with 200 and an `error` member, so look for one first.
        if let error = OAuthError(jsonBody: data, httpStatus: response.statusCode) { throw error }
        guard response.isSuccess else { throw HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt) }
        do { return try JSONDecoder().decode(TokenResponse.self, from: data) }
        catch { throw HTTPTransportError.invalidBody("token response: \(error)") }
    }

    /// A request to the provider's own endpoints: proved when there is a DPoP key (with the nonce retry).
    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if let dpop { return try await dpop.send(request, over: transport) }
        return try await transport.send(request)
    }

    static func error(from data: Data, _ response: HTTPURLResponse) -> any Error {
        OAuthError(jsonBody: data, httpStatus: response.statusCode)
            ?? HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt)
    }
}

/// What `OAuthClient.signIn` returns: the tokens and, for OpenID Connect, the validated claims.
public struct SignInResult: Sendable, Equatable {
    public let tokens: TokenResponse
    public let idTokenClaims: IDTokenClaims?
}

/// RFC 7009 `token_type_hint`.
public enum TokenTypeHint: String, Sendable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

/// The provider's metadata lacks something the call needs.
public enum ClientSetupError: Error, Equatable, Sendable {
    case endpointMissing(String)
}
