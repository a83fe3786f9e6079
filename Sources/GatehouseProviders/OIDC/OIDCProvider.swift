import Foundation
import GatehouseCrypto

/// Any OpenID Connect provider: authorization code flow with PKCE S256 and a nonce; the id_token is
/// verified against the discovered JWKS; userinfo fills in a missing email.
public struct OIDCProvider: SignInProvider {
    public let settings: OIDCSettings
    public let kind: ProviderKind
    public var id: String { settings.id }
    public var displayName: String { settings.displayName }
    public var callbackMethod: CallbackMethod { .query }
    let transport: any ProviderTransport
    let discovery: OIDCDiscovery

    public init(settings: OIDCSettings, kind: ProviderKind = .oidc, transport: any ProviderTransport,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.kind = kind
        self.transport = transport
        discovery = OIDCDiscovery(settings: settings, transport: transport, clock: clock)
    }

    /// The endpoints in use (discovery fetched if needed) — for `gatehouse providers check`.
    public func endpoints() async throws -> OIDCEndpoints { try await discovery.endpoints() }

    public func authorizationURL(state: String, flow: ProviderFlow) async throws -> URL {
        let endpoints = try await discovery.endpoints()
        var fields = [("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", flow.redirectURI),
                      ("scope", settings.scopes.joined(separator: " ")), ("state", state), ("nonce", flow.nonce),
                      ("code_challenge", PKCE.challenge(for: flow.codeVerifier)), ("code_challenge_method", "S256")]
        if let domain = settings.hostedDomain { fields.append(("hd", domain)) }
        return FormEncoding.url(endpoints.authorization, adding: fields)
    }

    public func completeSignIn(callback: [String: String], flow: ProviderFlow) async throws -> ExternalProfile {
        let code = try authorizationCode(callback)
        let endpoints = try await discovery.endpoints()
        let tokens = try await transport.json(.form(endpoints.token, [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", flow.redirectURI),
            ("client_id", settings.clientID), ("client_secret", settings.clientSecret), ("code_verifier", flow.codeVerifier),
        ]))
        guard let idToken = tokens["id_token"]?.stringValue else { throw ProviderError.invalidToken(.noIDToken) }
        let validator = try await discovery.idTokenValidator()
        let claims = try await validator.validate(idToken, expectedNonce: flow.nonce)
        var merged = claims.all
        if merged["email"] == nil, let userinfo = endpoints.userinfo, let accessToken = tokens["access_token"]?.stringValue {
            let info = try await transport.json(ProviderHTTPRequest(method: "GET", url: userinfo, headers: [
                "Authorization": "Bearer " + accessToken, "Accept": "application/json",
            ]))
            // OIDC Core §5.3.2: userinfo is only about the id_token's subject.
            guard info["sub"]?.stringValue == claims.subject else { throw ProviderError.invalidToken(.userinfoSubject) }
            for (name, value) in info where merged[name] == nil { merged[name] = value }
        }
        if let domain = settings.hostedDomain, merged["hd"]?.stringValue != domain { throw ProviderError.domainNotAllowed }
        let email = merged["email"]?.stringValue
        let verified = merged["email_verified"].flatMap(BooleanClaim.init)?.value ?? false
        let name = merged["name"]?.stringValue
            ?? [merged["given_name"]?.stringValue, merged["family_name"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        return ExternalProfile(provider: id, subject: claims.subject ?? "", email: email?.lowercased(), emailVerified: verified,
                               name: name.isEmpty ? nil : name, rawClaims: merged,
                               refreshToken: tokens["refresh_token"]?.stringValue)
    }
}
