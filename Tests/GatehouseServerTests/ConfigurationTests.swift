import Foundation
import GatehouseIdentity
import GatehouseServer
import Testing

@Suite struct ConfigurationTests {
    @Test func defaults() throws {
        let configuration = try GatehouseConfiguration.load(environment: [:])
        #expect(configuration.publicURL.absoluteString == "http://127.0.0.1:8080")
        #expect(configuration.http.listen.description == "127.0.0.1:8080")
        #expect(configuration.databaseURL == "sqlite://./var/gatehouse.sqlite")
        #expect(configuration.http.maxBodyBytes == 65_536)
        #expect(!configuration.isHTTPS)
        #expect(!configuration.demo)
    }

    @Test func environmentOverrides() throws {
        let configuration = try GatehouseConfiguration.load(environment: [
            "GATEHOUSE_PUBLIC_URL": "https://id.example.com", "GATEHOUSE_LISTEN": "[::1]:9000",
            "GATEHOUSE_DATABASE_URL": "sqlite:///tmp/x.sqlite", "GATEHOUSE_DEMO": "1",
        ])
        #expect(configuration.isHTTPS)
        #expect(configuration.http.listen.host == "::1" && configuration.http.listen.port == 9000)
        #expect(configuration.demo)
    }

    /// `rate_limits.native_passkey_per_ip` as docs/client-addresses-and-limits.md writes it, and its default.
    @Test func nativePasskeyLimitSetting() throws {
        let defaults = try GatehouseConfiguration.load(environment: [:])
        #expect(defaults.rateLimits.nativePasskeyPerIP == [RateLimitRule(bucket: "native_passkey.ip", limit: 30, window: 60)])
        let path = try temporaryFile(#"{"rate_limits": {"native_passkey_per_ip": [{"limit": 10, "window_seconds": 60}]}}"#)
        let configuration = try GatehouseConfiguration.load(environment: [:], configPath: path)
        #expect(configuration.rateLimits.nativePasskeyPerIP == [RateLimitRule(bucket: "native_passkey.ip.1", limit: 10, window: 60)])
        let disabled = try GatehouseConfiguration.load(environment: [:], configPath: try temporaryFile(#"{"rate_limits": {"enabled": false}}"#))
        #expect(disabled.rateLimits.nativePasskeyPerIP.isEmpty)
    }

    @Test(arguments: [
        ("GATEHOUSE_PUBLIC_URL", "ftp://x"), ("GATEHOUSE_PUBLIC_URL", "not a url"), ("GATEHOUSE_PUBLIC_URL", "https://x/?a=1"),
        ("GATEHOUSE_LISTEN", "localhost:8080"), ("GATEHOUSE_LISTEN", "127.0.0.1"), ("GATEHOUSE_LISTEN", "127.0.0.1:99999"),
        ("GATEHOUSE_DATABASE_URL", "mysql://x"), ("GATEHOUSE_DEMO", "maybe"),
    ])
    func badEnvironmentNamesTheKey(key: String, value: String) {
        #expect {
            try GatehouseConfiguration.load(environment: [key: value])
        } throws: { error in
            (error as? ConfigurationError)?.key == key && "\(error)".contains(value)
        }
    }

    @Test func configFileSetsLimits() throws {
        let path = try temporaryFile(#"{"http": {"max_body_bytes": 2048, "io_threads": 3}, "access_log": false}"#)
        let configuration = try GatehouseConfiguration.load(environment: ["GATEHOUSE_CONFIG": path])
        #expect(configuration.http.maxBodyBytes == 2048)
        #expect(configuration.http.ioThreads == 3)
        #expect(!configuration.accessLog)
    }

    @Test(arguments: [
        (#"{"http": {"max_body_bytes": "big"}}"#, "http.max_body_bytes"),
        (#"{"http": {"max_body_bytes": 10}}"#, "http.max_body_bytes"),
        (#"{"http": {"max_body_bytes": true}}"#, "http.max_body_bytes"),
        (#"{"http": {"max_bodyy_bytes": 2048}}"#, "http.max_bodyy_bytes"),
        (#"{"htttp": {}}"#, "htttp"),
        (#"{"access_log": 1}"#, "access_log"),
        ("[1,2]", "--config"),
        ("{not json", "--config"),
    ])
    func badConfigFileNamesTheKey(json: String, key: String) throws {
        let path = try temporaryFile(json)
        #expect {
            try GatehouseConfiguration.load(environment: [:], configPath: path)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test func configFileSetsSessionsPasswordsAndRateLimits() throws {
        let path = try temporaryFile(#"""
            {"sessions": {"idle_timeout_seconds": 600, "absolute_timeout_seconds": 3600},
             "passwords": {"argon2_memory_kib": 65536, "argon2_iterations": 3, "minimum_length": 12},
             "rate_limits": {"enabled": false}}
            """#)
        let configuration = try GatehouseConfiguration.load(environment: [:], configPath: path)
        #expect(configuration.sessions.idleTimeout == 600 && configuration.sessions.absoluteTimeout == 3600)
        #expect(configuration.passwordHashing.memoryBytes == 64 << 20 && configuration.passwordHashing.iterations == 3)
        #expect(configuration.passwordPolicy.minimumLength == 12)
        #expect(configuration.rateLimits.signInPerIP.isEmpty)
        #expect(configuration.smtp == nil, "no mail section: the log mailer")
        let mail = try temporaryFile(#"{"mail": {"url": "smtp://127.0.0.1:2525", "from": "id@example.com", "starttls": "off"}}"#)
        #expect(try GatehouseConfiguration.load(environment: [:], configPath: mail).smtp != nil)
    }

    /// The edge settings, the admin API limit and the hand-off lifetime, with their defaults.
    @Test func edgeAdminAndHandoffSettings() throws {
        let defaults = try GatehouseConfiguration.load(environment: [:])
        #expect(defaults.http.healthCheckConnections == 8)
        #expect(defaults.rateLimits.adminAPIPerClient == [RateLimitRule(bucket: "admin_api.client", limit: 600, window: 60)])
        #expect(defaults.handoffLifetime == 120)
        let path = try temporaryFile(#"""
            {"http": {"health_check_connections": 0},
             "rate_limits": {"admin_api_per_client": [{"limit": 100, "window_seconds": 10}, {"limit": 1000, "window_seconds": 3600}]},
             "native": {"handoff_ttl_seconds": 5}}
            """#)
        let configuration = try GatehouseConfiguration.load(environment: [:], configPath: path)
        #expect(configuration.http.healthCheckConnections == 0)
        #expect(configuration.rateLimits.adminAPIPerClient.map(\.limit) == [100, 1000])
        #expect(configuration.handoffLifetime == 5)
        let disabled = try GatehouseConfiguration.load(environment: [:], configPath: try temporaryFile(#"{"rate_limits": {"enabled": false}}"#))
        #expect(disabled.rateLimits.adminAPIPerClient.isEmpty)
    }

    @Test(arguments: [
        (#"{"http": {"health_check_connections": -1}}"#, "http.health_check_connections"),
        (#"{"native": {"handoff_ttl_seconds": 121}}"#, "native.handoff_ttl_seconds"),
        (#"{"native": {"handoff_ttl_seconds": 0}}"#, "native.handoff_ttl_seconds"),
        (#"{"rate_limits": {"admin_api_per_client": [{"limit": 0, "window_seconds": 60}]}}"#, "rate_limits.admin_api_per_client[0].limit"),
        (#"{"sessions": {"idle_timeout_seconds": 7200, "absolute_timeout_seconds": 3600}}"#, "sessions.idle_timeout_seconds"),
        (#"{"sessions": {"idle": 1}}"#, "sessions.idle"),
        (#"{"passwords": {"argon2_memory_kib": 10}}"#, "passwords.argon2_memory_kib"),
        (#"{"rate_limits": {"enabled": "no"}}"#, "rate_limits.enabled"),
        (#"{"rate_limits": []}"#, "rate_limits"),
        (#"{"mail": {"from": "a@example.com"}}"#, "mail.url"),
        (#"{"mail": {"url": "smtp://x", "from": "a@example.com", "bogus": 1}}"#, "mail.bogus"),
    ])
    func badSectionsNameTheKey(json: String, key: String) throws {
        let path = try temporaryFile(json)
        #expect {
            try GatehouseConfiguration.load(environment: [:], configPath: path)
        } throws: { error in
            (error as? ConfigurationError)?.key == key
        }
    }

    @Test func plainHTTPOnlyForLoopback() throws {
        #expect(throws: ConfigurationError.self) {
            try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "http://id.example.com"])
        }
        #expect(try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "http://localhost:9000"]).publicURL.port == 9000)
    }

    @Test func missingConfigFile() {
        #expect(throws: ConfigurationError.self) {
            try GatehouseConfiguration.load(environment: [:], configPath: "/nonexistent/gatehouse.json")
        }
    }

    private func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-config-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
