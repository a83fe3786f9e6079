import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseMail
import GatehouseNetwork

/// The optional JSON configuration file: structured settings that do not fit environment variables.
///
/// ```json
/// { "sessions": { "idle_timeout_seconds": 1209600, "absolute_timeout_seconds": 7776000 },
///   "passwords": { "argon2_memory_kib": 19456, "argon2_iterations": 2, "minimum_length": 10 },
///   "rate_limits": { "enabled": true },
///   "mail": { "url": "smtp://mail.example.com:587", "from": "id@example.com", "username": "…", "password": "…" },
///   "http": { "max_body_bytes": 65536, "max_header_bytes": 32768, "connection_timeout_seconds": 30,
///             "max_connections": 4096, "max_connections_per_ip": 256, "io_threads": 2,
///             "shutdown_grace_seconds": 10 },
///   "maintenance": { "interval_seconds": 60, "batch_size": 500 },
///   "keys": { "refresh_interval_seconds": 30 },
///   "access_log": true }
/// ```
/// Unknown keys are errors, so a typo never silently leaves a default in place.
struct ConfigFile {
    let root: [String: Any]
    let path: String

    static let knownSections: Set<String> = ["http", "access_log", "providers", "clients", "sessions", "maintenance", "keys",
                                             "passwords", "rate_limits", "mail", "oauth", "native", "users", "webhooks", "passkeys", "metrics",
                                             "branding"]

    static func read(path: String) throws(ConfigurationError) -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: "--config", problem: "cannot read \(path)")
        }
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigurationError(key: "--config", problem: "\(path) is not valid JSON")
        }
        guard let root = parsed as? [String: Any] else {
            throw ConfigurationError(key: "--config", problem: "\(path) must hold a JSON object")
        }
        for key in root.keys where !knownSections.contains(key) {
            throw ConfigurationError(key: key, problem: "unknown setting in \(path)")
        }
        return ConfigFile(root: root, path: path)
    }

    func apply(to configuration: inout GatehouseConfiguration, environment: [String: String] = [:]) throws(ConfigurationError) {
        if let value = root["access_log"] {
            guard let flag = value as? Bool, CFGetTypeIsBoolean(value) else {
                throw ConfigurationError(key: "access_log", problem: "must be true or false")
            }
            configuration.accessLog = flag
        }
        if let http = try section("http", known: ["max_body_bytes", "max_header_bytes", "connection_timeout_seconds", "max_connections",
                                                  "max_connections_per_ip", "io_threads", "shutdown_grace_seconds",
                                                  "trusted_proxies", "client_address_header", "header_timeout_seconds",
                                                  "health_check_connections", "hsts_include_subdomains",
                                                  "minimum_receive_bytes_per_second"]) {
            try applyHTTP(http, to: &configuration)
        }
        if let sessions = try section("sessions", known: ["idle_timeout_seconds", "absolute_timeout_seconds", "fresh_sign_in_seconds"]) {
            if let v = try sessions.integer("fresh_sign_in_seconds", 10...3_600) { configuration.sessions.freshSignInWindow = TimeInterval(v) }
            if let v = try sessions.integer("idle_timeout_seconds", 60...(366 * 86_400)) { configuration.sessions.idleTimeout = TimeInterval(v) }
            if let v = try sessions.integer("absolute_timeout_seconds", 60...(3 * 366 * 86_400)) {
                configuration.sessions.absoluteTimeout = TimeInterval(v)
            }
            if configuration.sessions.idleTimeout > configuration.sessions.absoluteTimeout {
                throw ConfigurationError(key: "sessions.idle_timeout_seconds", problem: "must not exceed sessions.absolute_timeout_seconds")
            }
        }
        if let passwords = try section("passwords", known: ["argon2_memory_kib", "argon2_iterations", "minimum_length",
                                                            "bcrypt_pepper", "bcrypt_pepper_env"]) {
            try applyPepper(passwords, environment: environment, to: &configuration)
            let memory = try passwords.integer("argon2_memory_kib", 8_192...(1 << 20)).map { $0 * 1024 } ?? configuration.passwordHashing.memoryBytes
            let iterations = try passwords.integer("argon2_iterations", 1...10) ?? configuration.passwordHashing.iterations
            configuration.passwordHashing = Argon2idParameters(memoryBytes: memory, iterations: iterations)
            if let v = try passwords.integer("minimum_length", 8...64) { configuration.passwordPolicy.minimumLength = v }
        }
        if let mail = root["mail"] {
            guard var object = mail as? [String: Any] else { throw ConfigurationError(key: "mail", problem: "must be an object") }
            // Like every other secret, the SMTP password may come from the environment instead of the file.
            if let value = object.removeValue(forKey: "password_env") {
                guard object["password"] == nil else {
                    throw ConfigurationError(key: "mail.password_env", problem: "give mail.password or mail.password_env, not both")
                }
                guard let name = value as? String, let password = environment[name], !password.isEmpty else {
                    throw ConfigurationError(key: "mail.password_env", problem: "must name a set, non-empty environment variable")
                }
                object["password"] = password
            }
            do { configuration.smtp = try SMTPConfiguration(json: object) } catch {
                throw ConfigurationError(key: "mail.\(error.key)", problem: error.problem)
            }
        }
        if let clients = root["clients"] {
            guard let list = clients as? [Any] else { throw ConfigurationError(key: "clients", problem: "must be an array") }
            configuration.clients = []
            for (index, value) in list.enumerated() {
                configuration.clients.append(try ConfiguredClient.parse(value, index: index, environment: environment))
            }
            let ids = configuration.clients.compactMap(\.registration.id)
            if Set(ids).count != ids.count { throw ConfigurationError(key: "clients", problem: "two clients share an id") }
        }
        if let webhooks = root["webhooks"] {
            configuration.webhooks = try WebhooksConfigParser.parse(webhooks, environment: environment,
                                                                    allowPlainHTTP: WebhooksConfigParser.isLoopback)
        }
        if let oauth = try section("oauth", known: ["access_token_lifetime_seconds", "id_token_lifetime_seconds", "refresh_token_lifetime_seconds",
                                                    "refresh_grace_seconds", "access_token_audience", "api_scopes", "dpop_nonce",
                                                    "require_pushed_authorization_requests", "resources"]) {
            if let v = try oauth.integer("access_token_lifetime_seconds", 60...86_400) { configuration.oauth.accessTokenLifetime = TimeInterval(v) }
            if let v = try oauth.integer("id_token_lifetime_seconds", 60...86_400) { configuration.oauth.idTokenLifetime = TimeInterval(v) }
            if let v = try oauth.integer("refresh_token_lifetime_seconds", 3_600...(400 * 86_400)) {
                configuration.oauth.refreshTokenLifetime = TimeInterval(v)
            }
            if let v = try oauth.integer("refresh_grace_seconds", 0...120) { configuration.oauth.refreshGraceWindow = TimeInterval(v) }
            if let value = oauth.values["dpop_nonce"] {
                guard let flag = value as? Bool else { throw ConfigurationError(key: "oauth.dpop_nonce", problem: "must be true or false") }
                configuration.oauth.dpopNonceRequired = flag
            }
            if let value = oauth.values["resources"] {
                guard let resources = value as? [String], resources.allSatisfy({ uri in
                    URLComponents(string: uri).map { $0.scheme != nil && $0.host != nil && $0.fragment == nil } ?? false
                }) else {
                    throw ConfigurationError(key: "oauth.resources", problem: "must be an array of absolute URIs without fragments")
                }
                configuration.oauth.resources = resources
            }
            if let value = oauth.values["require_pushed_authorization_requests"] {
                guard let flag = value as? Bool else {
                    throw ConfigurationError(key: "oauth.require_pushed_authorization_requests", problem: "must be true or false")
                }
                configuration.oauth.requirePushedAuthorizationRequests = flag
            }
            if let value = oauth.values["access_token_audience"] {
                guard let audience = value as? String, !audience.isEmpty else {
                    throw ConfigurationError(key: "oauth.access_token_audience", problem: "must be a non-empty string")
                }
                configuration.oauth.accessTokenAudience = audience
            }
            if let value = oauth.values["api_scopes"] {
                guard let scopes = value as? [String], scopes.allSatisfy({ Scope(parsing: $0)?.values == [$0] }) else {
                    throw ConfigurationError(key: "oauth.api_scopes", problem: "must be an array of scope names")
                }
                configuration.oauth.apiScopes = scopes
            }
        }
        if let providers = root["providers"] {
            configuration.providers = try ProvidersConfigParser.parse(providers, environment: environment,
                                                                       baseDirectory: (path as NSString).deletingLastPathComponent)
        }
        if let native = try section("native", known: ["path_rules", "handoff_ttl_seconds"]) {
            if let rules = native.values["path_rules"] { configuration.nativePathRules = try PathConfiguration.parse(rules) }
            if let ttl = try native.integer("handoff_ttl_seconds", 1...Int(HandoffTokens.lifetime)) {
                configuration.handoffLifetime = TimeInterval(ttl)
            }
        }
        if let maintenance = try section("maintenance", known: ["interval_seconds", "batch_size"]) {
            if let v = try maintenance.integer("interval_seconds", 1...86_400) { configuration.maintenance.interval = TimeInterval(v) }
            if let v = try maintenance.integer("batch_size", 1...100_000) { configuration.maintenance.batchSize = v }
        }
        if let keys = try section("keys", known: ["refresh_interval_seconds"]) {
            if let v = try keys.integer("refresh_interval_seconds", 1...3_600) { configuration.signingKeyRefreshInterval = TimeInterval(v) }
        }
        if let users = try section("users", known: ["subject_source"]), let value = users.values["subject_source"] {
            guard let text = value as? String, let source = SubjectSource(rawValue: text) else {
                throw ConfigurationError(key: "users.subject_source", problem: "must be \"gatehouse\" or \"external_id\"")
            }
            configuration.subjectSource = source
        }
        if let metrics = try section("metrics", known: MetricsConfigParser.knownKeys) {
            try MetricsConfigParser.apply(metrics, environment: environment, to: &configuration.metrics)
        }
        if let value = root["branding"] {
            guard let object = value as? [String: Any] else { throw ConfigurationError(key: "branding", problem: "must be an object") }
            var branding = configuration.branding ?? .standard(for: configuration.publicURL)
            try BrandingConfigParser.parse(object, into: &branding, baseDirectory: (path as NSString).deletingLastPathComponent)
            configuration.branding = branding
        }
        if let limits = try section("rate_limits", known: RateLimitsConfigParser.knownKeys) {
            try RateLimitsConfigParser.apply(limits, to: &configuration.rateLimits)
        }
        if let passkeys = try section("passkeys", known: PasskeysConfigParser.knownKeys) {
            try PasskeysConfigParser.apply(passkeys, publicURL: configuration.publicURL, to: &configuration.passkeys)
        }
    }

    /// A settings object with its dotted name, for messages that name the exact key.
    struct Section {
        let name: String
        let values: [String: Any]

        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let value = values[key] else { return nil }
            guard let number = value as? NSNumber, !CFGetTypeIsBoolean(value), number.doubleValue == number.doubleValue.rounded(),
                  range.contains(number.intValue) else {
                throw ConfigurationError(key: "\(name).\(key)", problem: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number.intValue
        }
    }

    private func section(_ name: String, known: Set<String>) throws(ConfigurationError) -> Section? {
        guard let value = root[name] else { return nil }
        guard let object = value as? [String: Any] else { throw ConfigurationError(key: name, problem: "must be an object") }
        for key in object.keys where !known.contains(key) {
            throw ConfigurationError(key: "\(name).\(key)", problem: "unknown setting in \(path)")
        }
        return Section(name: name, values: object)
    }

    /// Devise's `config.pepper`, given directly or by environment variable (it is a secret).
    private func applyPepper(_ passwords: Section, environment: [String: String],
                             to configuration: inout GatehouseConfiguration) throws(ConfigurationError) {
        if let value = passwords.values["bcrypt_pepper"] {
            guard let pepper = value as? String, !pepper.isEmpty else {
                throw ConfigurationError(key: "passwords.bcrypt_pepper", problem: "must be a non-empty string")
            }
            configuration.bcryptPepper = pepper
        }
        if let value = passwords.values["bcrypt_pepper_env"] {
            guard let name = value as? String, let pepper = environment[name], !pepper.isEmpty else {
                throw ConfigurationError(key: "passwords.bcrypt_pepper_env", problem: "must name a set, non-empty environment variable")
            }
            configuration.bcryptPepper = pepper
        }
    }

    private func applyHTTP(_ http: Section, to configuration: inout GatehouseConfiguration) throws(ConfigurationError) {
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? { try http.integer(key, range) }
        if let v = try integer("max_body_bytes", 1_024...(64 << 20)) { configuration.http.maxBodyBytes = v }
        if let v = try integer("max_header_bytes", 4_096...(1 << 20)) { configuration.http.maxHeaderBytes = v }
        if let v = try integer("connection_timeout_seconds", 1...3_600) { configuration.http.connectionTimeoutSeconds = v }
        if let v = try integer("max_connections", 1...1_000_000) { configuration.http.maxConnections = v }
        if let v = try integer("max_connections_per_ip", 1...1_000_000) { configuration.http.maxConnectionsPerIP = v }
        if let v = try integer("io_threads", 1...256) { configuration.http.ioThreads = v }
        if let v = try integer("shutdown_grace_seconds", 0...3_600) { configuration.http.shutdownGraceSeconds = Double(v) }
        if let v = try integer("header_timeout_seconds", 1...3_600) { configuration.http.headerTimeoutSeconds = v }
        if let v = try integer("minimum_receive_bytes_per_second", 0...1_000_000) { configuration.http.minimumReceiveBytesPerSecond = v }
        if let v = try integer("health_check_connections", 0...1_024) { configuration.http.healthCheckConnections = v }
        if let value = http.values["hsts_include_subdomains"] {
            guard let flag = value as? Bool, CFGetTypeIsBoolean(value) else {
                throw ConfigurationError(key: "http.hsts_include_subdomains", problem: "must be true or false")
            }
            configuration.hstsIncludeSubdomains = flag
        }
        var header = configuration.clientAddresses.header
        if let value = http.values["client_address_header"] {
            guard let text = value as? String,
                  let parsed = ClientAddressResolver.Header.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ConfigurationError(key: "http.client_address_header", problem: "must be \"X-Forwarded-For\" or \"Forwarded\"")
            }
            header = parsed
        }
        var proxies = configuration.clientAddresses.trustedProxies
        if let value = http.values["trusted_proxies"] {
            guard let list = value as? [Any] else {
                throw ConfigurationError(key: "http.trusted_proxies", problem: "must be an array of CIDR blocks such as \"127.0.0.1/32\"")
            }
            proxies = []
            for (index, item) in list.enumerated() {
                guard let text = item as? String, let network = IPNetwork(text) else {
                    throw ConfigurationError(key: "http.trusted_proxies[\(index)]",
                                             problem: "must be an IPv4 or IPv6 CIDR block such as \"10.0.0.0/8\" or \"::1/128\"")
                }
                proxies.append(network)
            }
        }
        configuration.clientAddresses = ClientAddressResolver(trustedProxies: proxies, header: header)
    }
}

/// Whether a decoded JSON value is `true`/`false` (not 0 or 1).
func isJSONBoolean(_ value: Any) -> Bool { CFGetTypeIsBoolean(value) }

/// JSONSerialization gives booleans as NSNumber; tell them apart from 0 and 1.
private func CFGetTypeIsBoolean(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
}
