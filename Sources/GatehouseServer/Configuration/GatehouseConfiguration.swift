import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseIdentity
import GatehouseMail
import GatehouseNetwork

/// Everything Gatehouse needs to start, from the environment and an optional JSON file.
public struct GatehouseConfiguration: Sendable {
    /// The URL users and clients reach Gatehouse at (issuer, redirect URIs, cookie security).
    public var publicURL: URL
    public var http: HTTPServerConfiguration
    public var databaseURL: String
    /// Whether each request is logged as a JSON line on stdout.
    public var accessLog: Bool
    /// `GATEHOUSE_DEMO=1`: mounts the provider simulator and shows a banner (see the providers issue).
    public var demo: Bool
    public var sessions = SessionPolicy()
    public var passwordHashing = Argon2idParameters.owasp
    public var passwordPolicy = PasswordPolicy()
    /// Devise's pepper for imported bcrypt hashes (`passwords.bcrypt_pepper` or `passwords.bcrypt_pepper_env`).
    public var bcryptPepper: String?
    /// Whether an imported user's product user id becomes their `sub` (`users.subject_source`).
    public var subjectSource: SubjectSource = .gatehouse
    /// Signed webhooks to the product (the `webhooks` array).
    public var webhooks: [WebhookEndpoint] = []
    public var rateLimits = RateLimitPolicy()
    /// HSTS `includeSubDomains` (`http.hsts_include_subdomains`); nil: on at a host root, off under a path, where the
    /// header would bind every other host of the product's domain to https as well.
    public var hstsIncludeSubdomains: Bool?
    /// Whether HSTS says `includeSubDomains`.
    public var hstsCoversSubdomains: Bool { hstsIncludeSubdomains ?? basePath.prefix.isEmpty }
    /// Who the client is behind reverse proxies (`http.trusted_proxies`, `http.client_address_header`).
    public var clientAddresses = ClientAddressResolver(trustedProxies: [])
    /// SMTP settings from the `mail` section; nil means the log mailer (development).
    public var smtp: SMTPConfiguration?
    /// The authorization server's lifetimes and scopes; its issuer is the public URL.
    public var oauth: OAuthSettings
    /// Clients declared in the configuration file, registered (or updated) at start-up.
    public var clients: [ConfiguredClient] = []
    /// Extra Hotwire Native path-configuration rules (`native.path_rules`), before Gatehouse's own.
    var nativePathRules: [PathConfiguration.Rule] = []
    /// How long a hand-off token (F2) lives (`native.handoff_ttl_seconds`, at most and by default 120 s).
    public var handoffLifetime: TimeInterval = HandoffTokens.lifetime
    /// Sign in with Apple, Google, GitHub and generic OIDC providers (the `providers` section).
    public var providers = ProvidersConfiguration()
    /// The WebAuthn relying party (config section `passkeys`).
    public var passkeys = PasskeySettings()
    /// The least severe server log level written (`GATEHOUSE_LOG_LEVEL`).
    public var logLevel = ServerLog.Level.info
    /// Where `/metrics` is served (the `metrics` section); by default nowhere.
    public var metrics = MetricsSettings()
    /// The product's name, logo, colours and links (the `branding` section); nil: the public URL's host.
    public var branding: Branding?
    /// Background purge of expired rows (config section `maintenance`).
    public var maintenance = MaintenanceService.Settings()
    /// How often each process re-reads the signing keys (config `keys.refresh_interval_seconds`),
    /// which bounds how long a key rotated elsewhere takes to be published here.
    public var signingKeyRefreshInterval: TimeInterval = 30
    /// Makes new signing keys (nil: fresh keys). Not a file setting: tests hand out a pre-made RSA key,
    /// because generating 2048-bit keys for every in-process server would dominate the suite's time.
    public var signingKeyGenerator: (@Sendable (JWSAlgorithm) throws -> GatehouseCrypto.SigningKey)?

    public init(publicURL: URL, http: HTTPServerConfiguration, databaseURL: String, accessLog: Bool = true,
                demo: Bool = false) {
        self.publicURL = publicURL; self.http = http; self.databaseURL = databaseURL
        self.accessLog = accessLog; self.demo = demo
        let issuer = publicURL.absoluteString.hasSuffix("/") ? String(publicURL.absoluteString.dropLast()) : publicURL.absoluteString
        oauth = OAuthSettings(issuer: issuer)
    }

    /// Whether the public URL is plain http on loopback (development): cookies cannot be `Secure` there.
    public var isLoopbackHTTP: Bool { publicURL.scheme == "http" }

    /// Whether the public URL is https (HSTS, `Secure` cookies).
    public var isHTTPS: Bool { publicURL.scheme == "https" }

    /// The path of the public URL (`/auth` for `https://app.example/auth`): every route is served under it.
    public var basePath: BasePath { BasePath(publicURL.path) ?? .root }

    public static let defaultPublicURL = "http://127.0.0.1:8080"
    public static let defaultListen = "127.0.0.1:8080"
    public static let defaultDatabaseURL = "sqlite://./var/gatehouse.sqlite"

    /// Reads `GATEHOUSE_*` variables and the JSON file named by `configPath` (or `GATEHOUSE_CONFIG`).
    public static func load(environment: [String: String], configPath: String? = nil) throws(ConfigurationError)
        -> GatehouseConfiguration
    {
        let publicText = environment["GATEHOUSE_PUBLIC_URL"] ?? defaultPublicURL
        guard let publicURL = URL(string: publicText), let scheme = publicURL.scheme,
              scheme == "http" || scheme == "https", publicURL.host != nil,
              publicURL.query == nil, publicURL.fragment == nil else {
            throw ConfigurationError(key: "GATEHOUSE_PUBLIC_URL",
                                     problem: "must be an absolute http(s) URL without query or fragment, got \"\(publicText)\"")
        }
        if scheme == "http", !["127.0.0.1", "localhost", "::1", "[::1]"].contains(publicURL.host ?? "") {
            throw ConfigurationError(key: "GATEHOUSE_PUBLIC_URL",
                                     problem: "plain http is only allowed for a loopback address; put TLS in front and use https, got \"\(publicText)\"")
        }
        guard BasePath(publicURL.path) != nil else {
            throw ConfigurationError(key: "GATEHOUSE_PUBLIC_URL",
                                     problem: "the path must be plain segments such as /auth (letters, digits, - . _ ~), got \"\(publicURL.path)\"")
        }
        let listenText = environment["GATEHOUSE_LISTEN"] ?? defaultListen
        guard let listen = ListenAddress(parsing: listenText) else {
            throw ConfigurationError(key: "GATEHOUSE_LISTEN",
                                     problem: "must be a numeric address and port such as 127.0.0.1:8080 or [::1]:8080, got \"\(listenText)\"")
        }
        let databaseURL = environment["GATEHOUSE_DATABASE_URL"] ?? defaultDatabaseURL
        guard databaseURL.hasPrefix("sqlite:") || databaseURL.hasPrefix("postgres://") || databaseURL.hasPrefix("postgresql://") else {
            throw ConfigurationError(key: "GATEHOUSE_DATABASE_URL",
                                     problem: "must start with sqlite: or postgres://, got \"\(databaseURL)\"")
        }
        let demo: Bool
        switch environment["GATEHOUSE_DEMO"] ?? "0" {
        case "1", "true", "yes": demo = true
        case "0", "false", "no", "": demo = false
        case let other: throw ConfigurationError(key: "GATEHOUSE_DEMO", problem: "must be 1 or 0, got \"\(other)\"")
        }
        var configuration = GatehouseConfiguration(publicURL: publicURL, http: HTTPServerConfiguration(listen: listen),
                                                   databaseURL: databaseURL, demo: demo)
        if let level = environment["GATEHOUSE_LOG_LEVEL"] {
            guard let parsed = ServerLog.Level(rawValue: level) else {
                throw ConfigurationError(key: "GATEHOUSE_LOG_LEVEL", problem: "must be debug, info, warn or error, got \"\(level)\"")
            }
            configuration.logLevel = parsed
        }
        if let path = configPath ?? environment["GATEHOUSE_CONFIG"] {
            let file = try ConfigFile.read(path: path)
            try file.apply(to: &configuration, environment: environment)
        }
        return configuration
    }
}
