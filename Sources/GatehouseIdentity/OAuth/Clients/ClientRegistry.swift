import Foundation
import GatehouseCrypto
import GatehouseStore
import Synchronization

/// How a client proved who it is at the token, revocation or introspection endpoint.
public enum ClientCredentials: Sendable, Equatable {
    /// `Authorization: Basic` (client_secret_basic).
    case basic(id: String, secret: String)
    /// `client_id` + `client_secret` in the form (client_secret_post).
    case post(id: String, secret: String)
    /// Only `client_id` (public clients).
    case none(id: String)

    public var clientID: String {
        switch self {
        case .basic(let id, _), .post(let id, _), .none(let id): id
        }
    }
}

/// What a new client registration asks for.
public struct ClientRegistration: Sendable {
    public var id: String?
    public var name: String
    public var kind: OAuthClient.Kind
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    public var grantTypes: [String]
    public var scopes: [String]
    public var firstParty: Bool
    public var allowLocalhost: Bool
    public var webOrigins: [String]
    public var metadata: String

    public init(id: String? = nil, name: String, kind: OAuthClient.Kind, redirectURIs: [String] = [],
                postLogoutRedirectURIs: [String] = [], grantTypes: [String] = ["authorization_code", "refresh_token"],
                scopes: [String] = [], firstParty: Bool = false, allowLocalhost: Bool = false, webOrigins: [String] = [],
                metadata: String = "{}") {
        self.id = id; self.name = name; self.kind = kind; self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs; self.grantTypes = grantTypes; self.scopes = scopes
        self.firstParty = firstParty; self.allowLocalhost = allowLocalhost; self.webOrigins = webOrigins; self.metadata = metadata
    }
}

/// Registers and authenticates OAuth clients. Secrets are random 256-bit strings shown once and kept
/// as SHA-256 (their entropy makes a slow hash unnecessary, and client authentication stays cheap).
public struct ClientRegistry: Sendable {
    public static let supportedGrants: Set<String> = ["authorization_code", "refresh_token", "password", "client_credentials",
                                                       "urn:ietf:params:oauth:grant-type:token-exchange"]
    let store: any OAuthClientStore
    let clock: IdentityClock
    let cache: ClientCache

    public init(store: any OAuthClientStore, clock: IdentityClock = .system, cacheLifetime: TimeInterval = 5) {
        self.store = store; self.clock = clock; self.cache = ClientCache(lifetime: cacheLifetime)
    }

    public enum RegistrationError: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        public var description: String { switch self { case .invalid(let why): why } }
    }

    /// Validates and stores a client; returns it and, for confidential clients, the secret (shown once).
    public func register(_ registration: ClientRegistration) async throws -> (client: OAuthClient, secret: String?) {
        try validate(registration)
        let secret = registration.kind == .confidential ? SecureRandom.token(byteCount: 32) : nil
        let now = clock.now()
        let client = OAuthClient(id: registration.id ?? "gh_" + RecordID.random(), name: registration.name, kind: registration.kind,
                                 secretHash: secret.map(SHA256.hex), redirectURIs: registration.redirectURIs,
                                 postLogoutRedirectURIs: registration.postLogoutRedirectURIs, grantTypes: registration.grantTypes,
                                 scopes: registration.scopes, firstParty: registration.firstParty,
                                 allowLocalhost: registration.allowLocalhost, webOrigins: registration.webOrigins,
                                 metadata: registration.metadata, createdAt: now)
        try await store.create(client)
        return (client, secret)
    }

    /// Registers a client declared in configuration, or brings the stored one in line with it
    /// (settings and secret), so the file stays the source of truth across restarts.
    public func apply(_ registration: ClientRegistration, secret: String?) async throws {
        try validate(registration)
        guard let id = registration.id else { throw RegistrationError.invalid("configured clients need an id") }
        let now = clock.now()
        let client = OAuthClient(id: id, name: registration.name, kind: registration.kind, secretHash: secret.map(SHA256.hex),
                                 redirectURIs: registration.redirectURIs, postLogoutRedirectURIs: registration.postLogoutRedirectURIs,
                                 grantTypes: registration.grantTypes, scopes: registration.scopes, firstParty: registration.firstParty,
                                 allowLocalhost: registration.allowLocalhost, webOrigins: registration.webOrigins,
                                 metadata: registration.metadata, createdAt: now)
        if let existing = try await store.find(id: id) {
            try await converge(client, onto: existing, at: now)
            return
        }
        do {
            try await store.create(client)
        } catch let error as StoreError where error.kind == .conflict {
            // Another process starting at the same time on the same database created it first: bring
            // that row in line instead of failing start-up (both apply the same file).
            guard let existing = try await store.find(id: id) else { throw error }
            try await converge(client, onto: existing, at: now)
        }
    }

    private func converge(_ configured: OAuthClient, onto existing: OAuthClient, at now: Date) async throws {
        var client = configured
        client.createdAt = existing.createdAt
        client.updatedAt = existing.updatedAt
        if client != existing {
            client.updatedAt = now
            try await store.update(client)
        }
    }

    /// Replaces a client's settings (not its secret).
    public func update(_ client: OAuthClient) async throws {
        try validate(ClientRegistration(id: client.id, name: client.name, kind: client.kind, redirectURIs: client.redirectURIs,
                                        postLogoutRedirectURIs: client.postLogoutRedirectURIs, grantTypes: client.grantTypes,
                                        scopes: client.scopes, firstParty: client.firstParty, allowLocalhost: client.allowLocalhost,
                                        webOrigins: client.webOrigins, metadata: client.metadata))
        var updated = client
        updated.updatedAt = clock.now()
        try await store.update(updated)
        cache.remove(updated.id)
    }

    func validate(_ registration: ClientRegistration) throws {
        guard !registration.name.trimmingASCIIWhitespace().isEmpty else { throw RegistrationError.invalid("the client needs a name") }
        if let id = registration.id, id.isEmpty || id.utf8.count > 128 || id.contains(where: { $0 == " " || $0 == ":" }) {
            throw RegistrationError.invalid("client ids are 1–128 characters without spaces or colons")
        }
        for grant in registration.grantTypes where !Self.supportedGrants.contains(grant) {
            throw RegistrationError.invalid("unknown grant type \(grant)")
        }
        if registration.grantTypes.contains("client_credentials"), registration.kind == .public {
            throw RegistrationError.invalid("client_credentials needs a confidential client")
        }
        if registration.grantTypes.contains("password"), !registration.firstParty {
            throw RegistrationError.invalid("the password grant is only for first-party clients (--first-party)")
        }
        if registration.grantTypes.contains("authorization_code"), registration.redirectURIs.isEmpty {
            throw RegistrationError.invalid("authorization_code needs at least one redirect URI")
        }
        for uri in registration.redirectURIs + registration.postLogoutRedirectURIs {
            if let problem = RedirectURIRules.problem(with: uri, allowLocalhost: registration.allowLocalhost) {
                throw RegistrationError.invalid(problem)
            }
        }
        for scope in registration.scopes where Scope(parsing: scope)?.values != [scope] {
            throw RegistrationError.invalid("invalid scope \(scope)")
        }
        if let problem = ClientMetadata.idTokenAlgorithmProblem(registration.metadata) { throw RegistrationError.invalid(problem) }
    }

    /// Checks the credentials a request presented. Public clients authenticate with `none`;
    /// confidential clients must present their secret, with the method they chose.
    public func authenticate(_ credentials: ClientCredentials) async throws -> OAuthClient {
        guard let client = try await find(id: credentials.clientID) else {
            throw OAuthError.invalidClient("Unknown client or wrong credentials.")
        }
        switch (client.kind, credentials) {
        case (.public, .none):
            return client
        case (.public, _):
            throw OAuthError.invalidClient("This is a public client: send only client_id.")
        case (.confidential, .basic(_, let secret)), (.confidential, .post(_, let secret)):
            guard let expected = client.secretHash, ConstantTime.equals(SHA256.hex(secret), expected) else {
                throw OAuthError.invalidClient("Unknown client or wrong credentials.")
            }
            return client
        case (.confidential, .none):
            throw OAuthError.invalidClient("This client must authenticate with its secret.")
        }
    }

    /// A client by id, from a short-lived cache: every token request looks its client up, and clients
    /// change rarely (an update reaches every process within `cacheLifetime`).
    public func find(id: String) async throws -> OAuthClient? {
        let now = clock.now()
        if let cached = cache.get(id, now: now) { return cached }
        let client = try await store.find(id: id)
        if let client { cache.put(client, now: now) }
        return client
    }
}

/// Recently read clients, by id.
final class ClientCache: Sendable {
    let lifetime: TimeInterval
    private let entries = Mutex<[String: (client: OAuthClient, at: Date)]>([:])

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    func get(_ id: String, now: Date) -> OAuthClient? {
        entries.withLock { entries in
            guard let entry = entries[id], now.timeIntervalSince(entry.at) < lifetime else { return nil }
            return entry.client
        }
    }

    func put(_ client: OAuthClient, now: Date) {
        entries.withLock { entries in
            if entries.count > 1_000 { entries.removeAll() }
            entries[client.id] = (client, now)
        }
    }

    func remove(_ id: String) { _ = entries.withLock { $0.removeValue(forKey: id) } }
}
