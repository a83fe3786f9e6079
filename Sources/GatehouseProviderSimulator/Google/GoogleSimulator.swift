import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// Simulated Google OpenID Connect. Routes, under `{prefix}/google`:
///
/// - `GET /.well-known/openid-configuration` — discovery, with absolute simulator URLs;
/// - `GET /o/oauth2/v2/auth` — validates the request, shows the account picker (or
///   `403 disallowed_useragent` to embedded web views);
/// - `POST /o/oauth2/v2/auth/complete` — the picker's form; 302 to the redirect URI;
/// - `POST /token` — code (PKCE S256 checked) and refresh-token grants;
/// - `GET /certs` — the RS256 JWKS;
/// - `GET|POST /userinfo` — the profile for a Bearer access token.
public final class GoogleSimulator: Sendable {
    /// Google's issuer in URL form (the one in its discovery document).
    public static let httpsIssuer = "https://accounts.google.com"
    /// The bare-host form some Google id_tokens carry.
    public static let bareIssuer = "accounts.google.com"
    static let tokenLifetime: TimeInterval = 3_599
    static let idTokenLifetime: TimeInterval = 3_600
    /// Full scope URLs Google echoes back for the short `email` and `profile` scopes.
    static let emailScope = "https://www.googleapis.com/auth/userinfo.email"
    static let profileScope = "https://www.googleapis.com/auth/userinfo.profile"

    struct IssuedCode: Sendable {
        var clientID: String
        var redirectURI: String
        var account: SimulatedAccount
        var scopes: [String]
        var nonce: String?
        var codeChallenge: String?
        var issueRefreshToken: Bool
    }

    struct Grant: Sendable {
        var clientID: String
        var account: SimulatedAccount
        var scopes: [String]
    }

    /// The RS256 keys behind `/certs`.
    public let keys: RSAKeyRing
    /// `{prefix}/google`.
    public let pathPrefix: String
    /// `{baseURL}/google`.
    public let baseURL: String
    /// The discovery `issuer` and the id_token `iss`.
    public let issuer: String
    public let idTokenIssuer: String

    let clients: [String: GoogleClient]
    let clock: @Sendable () -> Date
    let codeLifetime: TimeInterval
    let rejectsEmbeddedWebViews: Bool
    let codes: ExpiringStore<IssuedCode>
    let refreshTokens: ExpiringStore<Grant>
    let accessTokens: ExpiringStore<Grant>
    let consents: ExpiringStore<Bool>

    init(configuration: ProviderSimulator.Configuration) throws {
        clock = configuration.clock
        keys = try RSAKeyRing(initialKey: configuration.googleSigningKey, clock: configuration.clock)
        pathPrefix = configuration.pathPrefix + "/google"
        baseURL = configuration.baseURL + "/google"
        issuer = configuration.googleIssuer
        idTokenIssuer = configuration.googleIDTokenIssuer ?? configuration.googleIssuer
        clients = Dictionary(configuration.googleClients.map { ($0.clientID, $0) }, uniquingKeysWith: { _, last in last })
        codeLifetime = configuration.codeLifetime
        rejectsEmbeddedWebViews = configuration.googleRejectsEmbeddedWebViews
        codes = ExpiringStore(capacity: configuration.storeCapacity)
        refreshTokens = ExpiringStore(capacity: configuration.storeCapacity)
        accessTokens = ExpiringStore(capacity: configuration.storeCapacity)
        consents = ExpiringStore(capacity: configuration.storeCapacity)
    }

    /// Absolute endpoint URLs (also published in the discovery document).
    public var discoveryURL: String { baseURL + "/.well-known/openid-configuration" }
    public var authorizationEndpoint: String { baseURL + "/o/oauth2/v2/auth" }
    public var tokenEndpoint: String { baseURL + "/token" }
    public var jwksURI: String { baseURL + "/certs" }
    public var userinfoEndpoint: String { baseURL + "/userinfo" }

    func register(into router: inout Router) {
        router.get(pathPrefix + "/.well-known/openid-configuration") { [self] _ in discovery() }
        router.get(pathPrefix + "/o/oauth2/v2/auth") { [self] request in try authorize(request) }
        router.post(pathPrefix + "/o/oauth2/v2/auth/complete") { [self] request in try complete(request) }
        router.post(pathPrefix + "/token") { [self] request in token(request) }
        router.post(pathPrefix + "/native/sign-in") { [self] request in nativeSignIn(request) }
        router.get(pathPrefix + "/certs") { [self] _ in
            var response = Response.json(bytes: Array(keys.jwks.jsonData()))
            response.headers.set("Cache-Control", "public, max-age=60")
            return response
        }
        router.get(pathPrefix + "/userinfo") { [self] request in userinfo(request) }
        router.post(pathPrefix + "/userinfo") { [self] request in userinfo(request) }
    }

    /// Whether Google would refuse this browser as an embedded web view. The simulator's rule:
    /// the user agent names Hotwire/Turbo Native, carries Android WebView's `; wv)` marker, or is
    /// an iOS WebKit agent (`Mobile/`) without a `Safari/` token — which is how WKWebView differs
    /// from Safari and from `ASWebAuthenticationSession`.
    public static func isEmbeddedWebView(userAgent: String) -> Bool {
        if userAgent.contains("Hotwire Native") || userAgent.contains("Turbo Native") { return true }
        if userAgent.contains("; wv)") { return true }
        return userAgent.contains("AppleWebKit") && userAgent.contains("Mobile/") && !userAgent.contains("Safari/")
    }

    /// The discovery document, shaped like Google's.
    func discovery() -> Response {
        let strings: (([String]) -> JSONValue) = { .array($0.map(JSONValue.string)) }
        var response = SimulatorHTTP.json([
            "issuer": .string(issuer),
            "authorization_endpoint": .string(authorizationEndpoint),
            "token_endpoint": .string(tokenEndpoint),
            "userinfo_endpoint": .string(userinfoEndpoint),
            "jwks_uri": .string(jwksURI),
            "response_types_supported": strings(["code"]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(["RS256"]),
            "scopes_supported": strings(["openid", "email", "profile"]),
            "token_endpoint_auth_methods_supported": strings(["client_secret_post", "client_secret_basic"]),
            "claims_supported": strings(["aud", "email", "email_verified", "exp", "family_name", "given_name", "hd", "iat",
                                         "iss", "name", "nonce", "picture", "sub"]),
            // Google also lists "plain"; the simulator accepts S256 only (DESIGN §4 forbids plain).
            "code_challenge_methods_supported": strings(["S256"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token"]),
        ])
        response.headers.set("Cache-Control", "public, max-age=3600")
        return response
    }

    // MARK: Stable identities

    /// The numeric `sub` Google reports for `email` (21 digits, stable).
    public func subject(forEmail email: String) -> String {
        let hex = SHA256.hex("google-sub:" + email.lowercased())
        return "1" + hex.unicodeScalars.prefix(20).map { String($0.value % 10) }.joined()
    }

    /// The scopes as Google echoes them: short `email`/`profile` expanded to their URLs.
    static func grantedScopeString(_ scopes: [String]) -> String {
        var out: [String] = []
        for scope in scopes {
            let expanded = scope == "email" ? emailScope : scope == "profile" ? profileScope : scope
            if !out.contains(expanded) { out.append(expanded) }
        }
        return out.joined(separator: " ")
    }

    /// The profile claims shared by id_tokens and userinfo, filtered by the granted scopes.
    func profileClaims(_ account: SimulatedAccount, scopes: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(subject(forEmail: account.email))]
        if scopes.contains("email") || scopes.contains(Self.emailScope) {
            claims["email"] = .string(account.email)
            claims["email_verified"] = .bool(account.emailVerified)
        }
        if scopes.contains("profile") || scopes.contains(Self.profileScope) {
            claims["name"] = .string(account.name)
            claims["given_name"] = .string(account.givenName)
            if !account.familyName.isEmpty { claims["family_name"] = .string(account.familyName) }
            claims["picture"] = .string("https://lh3.googleusercontent.com/a/" + account.digest("google-picture").prefix(24) + "=s96-c")
        }
        if account.isWorkspaceAccount { claims["hd"] = .string(account.domain) }
        return claims
    }

    /// An id_token as Google signs it (RS256, `typ` JWT, `email_verified` a real boolean).
    func idToken(clientID: String, account: SimulatedAccount, scopes: [String], nonce: String?, accessToken: String) throws -> String {
        let now = clock()
        var claims = profileClaims(account, scopes: scopes)
        claims["iss"] = .string(idTokenIssuer)
        claims["azp"] = .string(clientID)
        claims["aud"] = .string(clientID)
        claims["at_hash"] = .string(SimulatorHTTP.halfHash(accessToken))
        claims["iat"] = SimulatorHTTP.numericDate(now)
        claims["exp"] = SimulatorHTTP.numericDate(now.addingTimeInterval(Self.idTokenLifetime))
        if let nonce { claims["nonce"] = .string(nonce) }
        return try keys.sign(claims, type: "JWT")
    }
}
