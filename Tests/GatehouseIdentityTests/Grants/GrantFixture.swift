import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Synchronization
import Testing

/// One token endpoint over an in-memory store, as Ory Fosite tests its handlers: real grants, real
/// storage, a clock the cases move, and clients of every shape the grants tell apart.
final class GrantFixture: Sendable {
    static let password = "correct horse battery"
    static let redirect = "com.example.app:/oauth"
    static let context = ClientContext(ip: "192.0.2.1", userAgent: "grant-tests")

    let database: any GatehouseDatabase
    let service: TokenService
    let accounts: AccountService
    /// The signing keys and settings the token service signs ID tokens with (an `id_token_hint` is read with them).
    let keys: SigningKeyRing
    static let settings = OAuthSettings(issuer: "https://id.example.test", apiScopes: ["api.read", "admin"])
    let identityClock: IdentityClock
    let user: User
    /// Secrets of the confidential clients, by id.
    let secrets: [String: String]
    private let clock = GrantClock()

    var now: Date { clock.now }
    func advance(_ seconds: TimeInterval) { clock.advance(seconds) }

    /// Clients: `app` (public, first-party, code + refresh + password + exchange), `web` (confidential first-party),
    /// `partner` (confidential third-party), `service` (confidential, client_credentials with API scopes),
    /// `admin-service` (the same, registered as admin) and `code-only` (confidential, authorization_code only).
    init(resolver: (any ExternalIDTokenResolver)? = nil) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        self.database = database
        let box = self.clock
        let clock = IdentityClock { box.now }
        let audit = AuditTrail(store: database.auditLog, clock: clock)
        let hasher = PasswordHasher(parameters: Argon2idParameters(memoryBytes: 1 << 16, iterations: 1))
        let sessions = SessionService(database: database, clock: clock)
        accounts = AccountService(database: database, hasher: hasher, audit: audit, sessions: sessions, clock: clock)
        // One RSA key for every fixture (an RSA key takes ~0.2 s to generate); no case is about keys.
        let keys = SigningKeyRing(store: database.signingKeys, kek: .generate(), clock: clock,
                                  policy: SigningKeyRing.Policy(generate: { $0 == .rs256 ? Self.rsaKey : try SigningKey.generate($0) }))
        try await keys.ensureSigningKey()
        self.keys = keys
        identityClock = clock
        let service = TokenService(stores: .init(database: database), settings: Self.settings,
                                   keys: keys, accounts: accounts, audit: audit, clock: clock, externalIDTokens: resolver)
        self.service = service
        let user = User(id: "u1", email: "ada@example.test", displayName: "Ada", passwordHash: try await hasher.hash(Self.password),
                        emailVerified: true, createdAt: clock.now())
        try await database.users.create(user)
        self.user = user
        let exchange = "urn:ietf:params:oauth:grant-type:token-exchange"
        let registry = service.registry
        _ = try await registry.register(ClientRegistration(id: "app", name: "App", kind: .public, redirectURIs: [Self.redirect],
                                                           grantTypes: ["authorization_code", "refresh_token", "password", exchange],
                                                           firstParty: true, metadata: #"{"bundle_ids":["com.example.app"]}"#))
        var secrets: [String: String] = [:]
        for registration in [
            ClientRegistration(id: "web", name: "Web", kind: .confidential, redirectURIs: ["https://web.example.test/cb"],
                               grantTypes: ["authorization_code", "refresh_token", "password"], firstParty: true),
            ClientRegistration(id: "partner", name: "Partner", kind: .confidential, redirectURIs: ["https://partner.example.test/cb"],
                               grantTypes: ["authorization_code", "refresh_token", exchange]),
            ClientRegistration(id: "service", name: "Service", kind: .confidential, grantTypes: ["client_credentials"], scopes: ["api.read", "admin"]),
            ClientRegistration(id: "admin-service", name: "Admin", kind: .confidential, grantTypes: ["client_credentials"], scopes: ["admin"],
                               metadata: #"{"admin":true}"#),
            ClientRegistration(id: "code-only", name: "Code only", kind: .confidential, redirectURIs: ["https://code.example.test/cb"],
                               grantTypes: ["authorization_code"]),
        ] {
            secrets[registration.id!] = try await registry.register(registration).secret
        }
        // A third-party client that the store says may use the password grant (registration refuses that
        // shape; the grant must refuse it too, by itself).
        var partner = try await database.oauthClients.find(id: "partner")!
        partner.grantTypes.append("password")
        try await database.oauthClients.update(partner)
        self.secrets = secrets
    }

    /// The endpoint's answer: the response, or the OAuth error code it refused with.
    func token(_ client: String, _ parameters: [String: String], secret: String? = nil) async -> Result<TokenResponse, OAuthError> {
        let credentials: ClientCredentials = if let secret = secret ?? secrets[client] { .basic(id: client, secret: secret) } else { .none(id: client) }
        do { return .success(try await service.token(parameters: parameters, credentials: credentials, context: Self.context)) } catch let error as OAuthError {
            return .failure(error)
        } catch {
            return .failure(OAuthError(.serverError, "unexpected: \(error)"))
        }
    }

    /// A code as `/oauth/authorize` stores it (hash only), for `client`.
    func code(client: String = "app", user: String = "u1", redirect: String = GrantFixture.redirect, scope: String = "openid offline_access",
              challengeFor verifier: String? = GrantFixture.verifier, expiresIn: TimeInterval = 60) async throws -> String {
        let value = SecureRandom.token(byteCount: 32)
        try await database.authorizationCodes.create(AuthorizationCode(
            hash: TokenHash(SHA256.hash(value)), clientId: client, userId: user, redirectURI: redirect, scope: scope,
            codeChallenge: verifier.map { PKCE.challenge(for: $0) }, authTime: now, authMethods: ["pwd"], createdAt: now,
            expiresAt: now.addingTimeInterval(expiresIn)))
        return value
    }

    /// A fresh refresh token of `client` (by the password grant).
    func refreshToken(client: String = "app", scope: String = "openid offline_access") async throws -> String {
        let response = try await token(client, ["grant_type": "password", "username": user.email, "password": Self.password, "scope": scope]).get()
        return try #require(response.refreshToken)
    }

    func disableUser() async throws { _ = try await database.users.update(id: user.id, [.disabled(true)], at: now) }

    static let verifier = String(repeating: "v", count: 43)
    static let rsaKey = try! SigningKey.generate(.rs256)
}

/// What a case expects: tokens (and whether a refresh token comes with them), or one error code.
enum Expected: Sendable, CustomStringConvertible {
    case tokens(refresh: Bool)
    case error(OAuthError.Code)

    var description: String {
        switch self {
        case .tokens(let refresh): "tokens\(refresh ? " + refresh" : "")"
        case .error(let code): code.rawValue
        }
    }

    func check(_ result: Result<TokenResponse, OAuthError>) -> String? {
        switch (self, result) {
        case (.tokens(let refresh), .success(let response)):
            return (response.refreshToken != nil) == refresh ? nil : "refresh token \(response.refreshToken != nil ? "issued" : "missing")"
        case (.error(let code), .failure(let error)):
            return error.code == code ? nil : "got \(error.code.rawValue) (\(error.description))"
        case (_, .success):
            return "got tokens"
        case (_, .failure(let error)):
            return "got \(error.code.rawValue) (\(error.description))"
        }
    }
}

/// The time the cases move forward.
final class GrantClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
