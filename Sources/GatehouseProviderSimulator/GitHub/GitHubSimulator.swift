import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// Simulated GitHub OAuth (not OpenID Connect). Routes, under `{prefix}/github`:
///
/// - `GET /login/oauth/authorize` — validates the request, shows the account picker;
/// - `POST /login/oauth/authorize/complete` — the picker's form; 302 to the redirect URI;
/// - `POST /login/oauth/access_token` — form-encoded answer unless `Accept: application/json`;
///   errors as GitHub sends them (HTTP 200 with `error=…`);
/// - `GET /api/user`, `GET /api/user/emails` — the REST API (`Authorization: Bearer|token …`).
public final class GitHubSimulator: Sendable {
    static let documentationURL = "https://docs.github.com/rest"

    struct IssuedCode: Sendable {
        var clientID: String
        var redirectURI: String
        var account: SimulatedAccount
        var scopes: [String]
        var codeChallenge: String?
    }

    struct Grant: Sendable {
        var account: SimulatedAccount
        var scopes: [String]
    }

    /// `{prefix}/github`.
    public let pathPrefix: String
    /// `{baseURL}/github`: stands for both `https://github.com` and `https://api.github.com`.
    public let baseURL: String

    let clients: [String: GitHubClient]
    let clock: @Sendable () -> Date
    let codeLifetime: TimeInterval
    let codes: ExpiringStore<IssuedCode>
    let accessTokens: ExpiringStore<Grant>

    init(configuration: ProviderSimulator.Configuration) {
        pathPrefix = configuration.pathPrefix + "/github"
        baseURL = configuration.baseURL + "/github"
        clients = Dictionary(configuration.githubClients.map { ($0.clientID, $0) }, uniquingKeysWith: { _, last in last })
        clock = configuration.clock
        codeLifetime = configuration.codeLifetime
        codes = ExpiringStore(capacity: configuration.storeCapacity)
        accessTokens = ExpiringStore(capacity: configuration.storeCapacity)
    }

    /// Absolute endpoint URLs for configuring a client against the simulator.
    public var authorizationEndpoint: String { baseURL + "/login/oauth/authorize" }
    public var tokenEndpoint: String { baseURL + "/login/oauth/access_token" }
    /// Stands for `https://api.github.com` (append `/user`, `/user/emails`).
    public var apiBaseURL: String { baseURL + "/api" }

    func register(into router: inout Router) {
        router.get(pathPrefix + "/login/oauth/authorize") { [self] request in try authorize(request) }
        router.post(pathPrefix + "/login/oauth/authorize/complete") { [self] request in try complete(request) }
        router.post(pathPrefix + "/login/oauth/access_token") { [self] request in accessToken(request) }
        router.get(pathPrefix + "/api/user") { [self] request in user(request) }
        router.get(pathPrefix + "/api/user/emails") { [self] request in emails(request) }
    }

    /// The numeric user id GitHub reports for `email` (stable).
    public func userID(forEmail email: String) -> Int64 {
        let hex = SHA256.hex("github-id:" + email.lowercased())
        return Int64(hex.prefix(7), radix: 16)! + 1_000
    }

    /// The login derived from the address's local part (letters, digits and hyphens).
    public func login(forEmail email: String) -> String {
        let local = email.split(separator: "@").first.map(String.init) ?? "user"
        let cleaned = String(local.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(39))
        return cleaned.isEmpty ? "user" : cleaned
    }

    // MARK: Authorize

    struct AuthorizationRequest {
        var client: GitHubClient
        var redirectURI: String
        var scopes: [String]
        var state: String?
        var codeChallenge: String?
        var parameters: [(String, String)]
    }

    static let parameterNames = ["client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
                                 "login", "allow_signup"]

    /// `GET /login/oauth/authorize`.
    func authorize(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let authorization = try parseAuthorization(request.query)
            return SimulatorPages.picker(provider: "GitHub", action: pathPrefix + "/login/oauth/authorize/complete",
                                         hidden: authorization.parameters, options: .init(unverifiedEmail: true),
                                         clientID: authorization.client.clientID)
        }
    }

    /// `POST /login/oauth/authorize/complete`.
    func complete(_ request: Request) throws -> Response {
        try Response.catchingRejection {
            let form = try request.form()
            let authorization = try parseAuthorization(form)
            guard form["action"] != "cancel" else {
                var fields = [("error", "access_denied"), ("error_description", "The user has denied your application access."),
                              ("error_uri", "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied")]
                if let state = authorization.state { fields.append(("state", state)) }
                return SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields))
            }
            let account = try SimulatedAccount.fromPicker(form, provider: "GitHub")
            let now = clock()
            // GitHub codes are 20 hex characters.
            let code = Hex.encode(SecureRandom.bytes(10))
            codes.put(code, IssuedCode(clientID: authorization.client.clientID, redirectURI: authorization.redirectURI,
                                       account: account, scopes: authorization.scopes, codeChallenge: authorization.codeChallenge),
                      expiresAt: now.addingTimeInterval(min(codeLifetime, 600)), now: now)
            var fields = [("code", code)]
            if let state = authorization.state { fields.append(("state", state)) }
            return SimulatorHTTP.found(SimulatorHTTP.redirectURL(authorization.redirectURI, fields))
        }
    }

    func parseAuthorization(_ form: URLEncodedForm) throws(PageRejection) -> AuthorizationRequest {
        func fail(_ code: String, _ message: String) -> PageRejection {
            PageRejection(response: SimulatorPages.error(provider: "GitHub", code: code, message: message))
        }
        var values: [String: String] = [:]
        for name in Self.parameterNames {
            do { values[name] = try form.single(name) } catch { throw fail("invalid_request", "Parameter \(name) appears more than once.") }
        }
        guard let clientID = values["client_id"], let client = clients[clientID] else {
            throw fail("not_found", "The OAuth app was not found (unknown client_id).")
        }
        // Without redirect_uri GitHub uses the app's registered callback URL.
        let redirectURI = values["redirect_uri"] ?? client.redirectURIs.first ?? ""
        guard client.redirectURIs.contains(redirectURI) else {
            throw fail("redirect_uri_mismatch", "The redirect_uri is not associated with this application.")
        }
        if let challenge = values["code_challenge"] {
            guard values["code_challenge_method"] == "S256" else {
                throw fail("invalid_request", "code_challenge_method must be S256.")
            }
            guard (43...128).contains(challenge.utf8.count) else { throw fail("invalid_request", "Invalid code_challenge.") }
        }
        // GitHub scopes are space- or comma-separated in the request.
        let scopes = (values["scope"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let parameters = Self.parameterNames.compactMap { name in values[name].map { (name, $0) } }
        return AuthorizationRequest(client: client, redirectURI: redirectURI, scopes: scopes, state: values["state"],
                                    codeChallenge: values["code_challenge"], parameters: parameters)
    }
}
