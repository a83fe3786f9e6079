import Foundation
import GatehouseCrypto

/// GitHub's OAuth app settings. Not OIDC: the profile comes from the REST API.
public struct GitHubSettings: Sendable, Equatable {
    public var clientID: String
    public var clientSecret: String
    public var scopes: [String]
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    /// `https://api.github.com` (GitHub Enterprise and the simulator differ).
    public var apiBaseURL: URL

    public init(clientID: String, clientSecret: String, scopes: [String] = ["read:user", "user:email"],
                authorizationEndpoint: URL = URL(string: "https://github.com/login/oauth/authorize")!,
                tokenEndpoint: URL = URL(string: "https://github.com/login/oauth/access_token")!,
                apiBaseURL: URL = URL(string: "https://api.github.com")!) {
        self.clientID = clientID; self.clientSecret = clientSecret; self.scopes = scopes
        self.authorizationEndpoint = authorizationEndpoint; self.tokenEndpoint = tokenEndpoint; self.apiBaseURL = apiBaseURL
    }
}

/// Sign in with GitHub: OAuth 2 with PKCE, the token asked for as JSON, then `/user` and `/user/emails`
/// (only a primary *and* verified address counts).
public struct GitHubProvider: SignInProvider {
    public let settings: GitHubSettings
    public var id: String { "github" }
    public var displayName: String { "GitHub" }
    public var kind: ProviderKind { .github }
    public var callbackMethod: CallbackMethod { .query }
    let transport: any ProviderTransport

    public init(settings: GitHubSettings, transport: any ProviderTransport) {
        self.settings = settings
        self.transport = transport
    }

    public func authorizationURL(state: String, flow: ProviderFlow) async throws -> URL {
        FormEncoding.url(settings.authorizationEndpoint, adding: [
            ("client_id", settings.clientID), ("redirect_uri", flow.redirectURI), ("scope", settings.scopes.joined(separator: " ")),
            ("state", state), ("code_challenge", PKCE.challenge(for: flow.codeVerifier)), ("code_challenge_method", "S256"),
        ])
    }

    public func completeSignIn(callback: [String: String], flow: ProviderFlow) async throws -> ExternalProfile {
        let code = try authorizationCode(callback)
        // Without Accept: application/json GitHub answers form-encoded — and errors come back as HTTP 200.
        let tokens = try await transport.json(.form(settings.tokenEndpoint, [
            ("client_id", settings.clientID), ("client_secret", settings.clientSecret), ("code", code),
            ("redirect_uri", flow.redirectURI), ("code_verifier", flow.codeVerifier),
        ], headers: ["Accept": "application/json"]))
        if let error = tokens["error"]?.stringValue { throw ProviderError.providerError(error) }
        guard let accessToken = tokens["access_token"]?.stringValue else { throw ProviderError.invalidCallback("no access token") }
        let user = try await api("/user", accessToken)
        // GitHub ids are JSON integers. A fraction or a huge number is refused, not converted: Int64(1e300)
        // would trap, and 1.5 would silently become user 1 (found by fuzz/providers).
        guard case .object(let profile) = user, case .integer(let number)? = profile["id"], number > 0 else {
            throw ProviderError.invalidCallback("GitHub /user has no id")
        }
        guard case .array(let emails) = try await api("/user/emails", accessToken) else {
            throw ProviderError.invalidCallback("GitHub /user/emails is not a list")
        }
        let entries = emails.compactMap { value -> (email: String, primary: Bool, verified: Bool)? in
            guard case .object(let entry) = value, let email = entry["email"]?.stringValue else { return nil }
            return (email, entry["primary"] == .bool(true), entry["verified"] == .bool(true))
        }
        guard !entries.isEmpty else { throw ProviderError.missingEmail }
        guard let primary = entries.first(where: { $0.primary && $0.verified }) else { throw ProviderError.unverifiedEmail }
        let name = profile["name"]?.stringValue ?? profile["login"]?.stringValue
        return ExternalProfile(provider: self.id, subject: String(number), email: primary.email.lowercased(),
                               emailVerified: true, name: name, rawClaims: profile)
    }

    private func api(_ path: String, _ token: String) async throws -> JSONValue {
        let url = settings.apiBaseURL.appendingPathComponent(String(path.dropFirst()))
        let response = try await transport.exchange(ProviderHTTPRequest(method: "GET", url: url, headers: [
            "Authorization": "Bearer " + token, "Accept": "application/vnd.github+json", "User-Agent": "Gatehouse",
            "X-GitHub-Api-Version": "2022-11-28",
        ]))
        if response.status >= 500 { throw ProviderError.unavailable("GitHub \(path) answered HTTP \(response.status)") }
        guard response.status == 200, let value = JSONValue(parsing: response.body) else {
            throw ProviderError.providerError("github_api_\(response.status)")
        }
        return value
    }
}
