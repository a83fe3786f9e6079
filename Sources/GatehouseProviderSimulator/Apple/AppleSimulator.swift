import Foundation
import GatehouseCrypto
import GatehouseHTTP
import Synchronization

/// Simulated Sign in with Apple (web flow). Routes, under `{prefix}/apple`:
///
/// - `GET|POST /auth/authorize` — validates the request, shows the account picker;
/// - `POST /auth/authorize/complete` — the picker's form; answers with the callback
///   (`form_post`: an auto-submitting form; `query`/`fragment`: a 302);
/// - `POST /auth/token` — code and refresh-token grants, client secret JWT verified as Apple does;
/// - `GET /auth/keys` — the RS256 JWKS;
/// - `POST /auth/revoke` — records revocations (see ``revocations``).
public final class AppleSimulator: Sendable {
    /// The issuer Apple uses; kept even though the endpoints are simulated, so Gatehouse is
    /// configured with simulated URLs but the real issuer string.
    public static let issuer = "https://appleid.apple.com"
    /// Lifetime of id_tokens (Apple's are valid for a day) and of access tokens.
    static let idTokenLifetime: TimeInterval = 86_400
    static let accessTokenLifetime: TimeInterval = 3_600

    /// A revocation request Apple received, for tests to assert on.
    public struct Revocation: Sendable, Equatable {
        public let clientID: String
        public let token: String
        public let tokenTypeHint: String?
        public let revokedAt: Date
        /// Whether it ended a live refresh token of that client (Apple answers 200 either way).
        public let revoked: Bool
    }

    /// Who signed in, as Apple reports it to one client.
    struct Identity: Sendable {
        var subject: String
        var email: String
        var isPrivateEmail: Bool
    }

    struct IssuedCode: Sendable {
        var clientID: String
        var redirectURI: String
        var identity: Identity
        var nonce: String?
        var authTime: Date
        var includeEmail: Bool
    }

    struct Grant: Sendable {
        var clientID: String
        var identity: Identity
        var includeEmail: Bool
        var authTime: Date
    }

    /// The RS256 keys behind `/auth/keys`; rotate them with ``RSAKeyRing/rotate(to:retention:)``.
    public let keys: RSAKeyRing
    /// `{prefix}/apple`.
    public let pathPrefix: String
    /// `{baseURL}/apple`: the simulated `https://appleid.apple.com`.
    public let baseURL: String

    let clients: [String: AppleClient]
    let clock: @Sendable () -> Date
    let codeLifetime: TimeInterval
    let codes: ExpiringStore<IssuedCode>
    let refreshTokens: ExpiringStore<Grant>
    /// Scopes each (client, subject) pair has consented to; the `user` field goes out only once.
    let consents: ExpiringStore<Set<String>>
    private let revoked = Mutex<[Revocation]>([])
    private let revocationCapacity: Int

    init(configuration: ProviderSimulator.Configuration) throws {
        clock = configuration.clock
        keys = try RSAKeyRing(initialKey: configuration.appleSigningKey, clock: configuration.clock)
        pathPrefix = configuration.pathPrefix + "/apple"
        baseURL = configuration.baseURL + "/apple"
        clients = Dictionary(configuration.appleClients.map { ($0.clientID, $0) }, uniquingKeysWith: { _, last in last })
        codeLifetime = configuration.codeLifetime
        codes = ExpiringStore(capacity: configuration.storeCapacity)
        refreshTokens = ExpiringStore(capacity: configuration.storeCapacity)
        consents = ExpiringStore(capacity: configuration.storeCapacity)
        revocationCapacity = configuration.storeCapacity
    }

    /// Absolute endpoint URLs, for configuring a client (Gatehouse) against the simulator.
    public var authorizationEndpoint: String { baseURL + "/auth/authorize" }
    public var tokenEndpoint: String { baseURL + "/auth/token" }
    public var jwksURI: String { baseURL + "/auth/keys" }
    public var revocationEndpoint: String { baseURL + "/auth/revoke" }

    /// Revocations received so far, oldest first.
    public var revocations: [Revocation] { revoked.withLock { $0 } }

    func register(into router: inout Router) {
        router.get(pathPrefix + "/auth/authorize") { [self] request in try authorize(request) }
        router.post(pathPrefix + "/auth/authorize") { [self] request in try authorize(request) }
        router.post(pathPrefix + "/auth/authorize/complete") { [self] request in try complete(request) }
        router.post(pathPrefix + "/auth/token") { [self] request in token(request) }
        router.get(pathPrefix + "/auth/keys") { [self] _ in
            var response = Response.json(bytes: Array(keys.jwks.jsonData()))
            response.headers.set("Cache-Control", "max-age=60")
            return response
        }
        router.post(pathPrefix + "/auth/revoke") { [self] request in revoke(request) }
    }

    // MARK: Stable identities

    /// The `sub` Apple reports for `email`: stable, shaped like Apple's (`000123.<32 hex>.0456`).
    public func subject(forEmail email: String) -> String {
        let hex = SHA256.hex("apple-sub:" + email.lowercased())
        let digits = hex.unicodeScalars.map { String($0.value % 10) }.joined()
        return "\(digits.prefix(6)).\(hex.prefix(32)).\(digits.suffix(4))"
    }

    /// The private relay address Apple hands `teamID`'s apps for `email`.
    public func privateRelayEmail(forEmail email: String, teamID: String) -> String {
        String(SHA256.hex("apple-relay:\(teamID):" + email.lowercased()).prefix(10)) + "@privaterelay.appleid.com"
    }

    func identity(for account: SimulatedAccount, client: AppleClient) -> Identity {
        Identity(subject: subject(forEmail: account.email),
                 email: account.usesPrivateRelay ? privateRelayEmail(forEmail: account.email, teamID: client.teamID) : account.email,
                 isPrivateEmail: account.usesPrivateRelay)
    }

    // MARK: id_token

    /// An id_token as Apple signs it: RS256, no `typ`, booleans about the email as strings.
    func idToken(clientID: String, identity: Identity, includeEmail: Bool, nonce: String?, authTime: Date,
                 code: String? = nil, accessToken: String? = nil) throws -> String {
        let now = clock()
        var claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "aud": .string(clientID), "sub": .string(identity.subject),
            "iat": SimulatorHTTP.numericDate(now), "exp": SimulatorHTTP.numericDate(now.addingTimeInterval(Self.idTokenLifetime)),
            "auth_time": SimulatorHTTP.numericDate(authTime), "nonce_supported": .bool(true), "real_user_status": .integer(2),
        ]
        if includeEmail {
            claims["email"] = .string(identity.email)
            claims["email_verified"] = .string("true")
            claims["is_private_email"] = .string(identity.isPrivateEmail ? "true" : "false")
        }
        if let nonce { claims["nonce"] = .string(nonce) }
        if let code { claims["c_hash"] = .string(SimulatorHTTP.halfHash(code)) }
        if let accessToken { claims["at_hash"] = .string(SimulatorHTTP.halfHash(accessToken)) }
        return try keys.sign(claims, type: nil)
    }

    func record(_ revocation: Revocation) {
        revoked.withLock { list in
            list.append(revocation)
            if list.count > revocationCapacity { list.removeFirst(list.count - revocationCapacity) }
        }
    }
}
