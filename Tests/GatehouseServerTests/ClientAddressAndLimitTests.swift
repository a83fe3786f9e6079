import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseNetwork
import GatehouseServer
import GatehouseTesting
import Testing

/// Adds a header to every request, as a reverse proxy does.
private struct ForwardingClient: TestClient {
    let inner: any TestClient
    let forwardedFor: String
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8]) async throws -> TestResponse {
        var headers = headers
        headers.add("X-Forwarded-For", forwardedFor)
        return try await inner.send(method, target, headers: headers, body: body)
    }
}

@Suite struct ClientAddressAndLimitTests {
    let password = "correct horse battery"

    private func behindProxy() async throws -> TestGatehouse {
        try await TestGatehouse.make { $0.clientAddresses = ClientAddressResolver(trustedProxies: [IPNetwork("127.0.0.1/32")!]) }
    }

    private func browser(_ gatehouse: TestGatehouse, peer: String = "127.0.0.1", forwardedFor: String) -> BrowserLikeClient {
        BrowserLikeClient(ForwardingClient(inner: InProcessClient(gatehouse.app.pipeline, remoteAddress: peer), forwardedFor: forwardedFor))
    }

    private func signIn(_ browser: BrowserLikeClient, _ email: String, _ password: String) async throws -> Int {
        try await browser.submit("/sign-in", to: "/sign-in", [("email", email), ("password", password)]).status
    }

    @Test func theForwardedAddressReachesAuditSessionsAndLimitsOnlyFromATrustedProxy() async throws {
        let gatehouse = try await behindProxy()
        _ = try await gatehouse.signedUpBrowser()
        let viaProxy = browser(gatehouse, forwardedFor: "1.1.1.1, 203.0.113.9")
        #expect(try await signIn(viaProxy, "ada@example.com", password) == 303)
        let page = try await viaProxy.get("/account")
        #expect(page.text.contains("203.0.113.9"), "the session list shows the client, not the proxy")
        #expect(!page.text.contains("1.1.1.1"), "the spoofed left-most hop is ignored")
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let audit = try await gatehouse.database.auditLog.list(userId: user.id, limit: 10)
        #expect(audit.first { $0.event.type == "sign_in.succeeded" }?.event.ip == "203.0.113.9")

        // An untrusted peer claiming an address: its own address is used, for audit and for limits.
        let spoofer = browser(gatehouse, peer: "198.51.100.66", forwardedFor: "203.0.113.9")
        #expect(try await signIn(spoofer, "ada@example.com", password) == 303)
        let after = try await gatehouse.database.auditLog.list(userId: user.id, limit: 10)
        #expect(after.first { $0.event.type == "sign_in.succeeded" }?.event.ip == "198.51.100.66")
        for attempt in 0..<10 {
            let status = try await signIn(browser(gatehouse, peer: "198.51.100.66", forwardedFor: "203.0.113.\(attempt)"),
                                          "nobody\(attempt)@example.com", "wrong password!")
            #expect(status == 401)
        }
        let spoofed = try await browser(gatehouse, peer: "198.51.100.66", forwardedFor: "203.0.113.9").submit("/sign-in", to: "/sign-in", [("email", "someone@example.com"), ("password", "wrong password!")])
        #expect(spoofed.status == 429, "rotating the header gains nothing: \(spoofed.status) \(spoofed.text.prefix(3000))")
        #expect(try await signIn(browser(gatehouse, forwardedFor: "203.0.113.9"), "ada@example.com", password) == 303,
                "the real 203.0.113.9 is unaffected")
    }

    @Test func successesFromOneAddressAreNeverLimitedButFailuresAre() async throws {
        let gatehouse = try await TestGatehouse.make()
        for index in 0..<15 {
            _ = try await gatehouse.signedUpBrowser(email: "user\(index)@example.com", ip: "10.\(index).0.1")
        }
        // Fifteen users behind one carrier NAT, more than the per-IP limit of 10: all sign in, twice.
        for round in 0..<2 {
            for index in 0..<15 {
                #expect(try await signIn(gatehouse.browser(ip: "192.0.2.50"), "user\(index)@example.com", password) == 303,
                        "round \(round) user \(index)")
            }
        }
        for index in 0..<10 {
            #expect(try await signIn(gatehouse.browser(ip: "192.0.2.66"), "user\(index)@example.com", "wrong password!") == 401)
        }
        let limited = try await gatehouse.browser(ip: "192.0.2.66").submit("/sign-in", to: "/sign-in",
                                                                           [("email", "user14@example.com"), ("password", password)])
        #expect(limited.status == 429, "the guessing address waits, even with a right password")
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(try await signIn(gatehouse.browser(ip: "192.0.2.50"), "user14@example.com", password) == 303, "the NAT is not locked")
        // Each guessed account saw one failure: far from its back-off.
        #expect(try await signIn(gatehouse.browser(ip: "192.0.2.50"), "user3@example.com", password) == 303)
        gatehouse.clock.advance(181)
        #expect(try await signIn(gatehouse.browser(ip: "192.0.2.66"), "user14@example.com", password) == 303)
    }

    @Test func ipv6ClientsAreKeyedByTheirSlash64() async throws {
        let gatehouse = try await TestGatehouse.make()
        for index in 1...10 {
            let ip = "2001:db8:1:2::\(String(index, radix: 16))"
            #expect(try await signIn(gatehouse.browser(ip: ip), "nobody\(index)@example.com", "wrong password!") == 401)
        }
        #expect(try await signIn(gatehouse.browser(ip: "2001:db8:1:2:ffff:ffff:ffff:fffe"), "other@example.com", "wrong password!") == 429)
        #expect(try await signIn(gatehouse.browser(ip: "2001:db8:1:3::1"), "other@example.com", "wrong password!") == 401,
                "the neighbouring /64 is someone else")
    }

    @Test func rateLimitRulesComeFromTheConfigFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func load(_ json: String) throws -> GatehouseConfiguration {
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            return try GatehouseConfiguration.load(environment: [:], configPath: path)
        }
        let configuration = try load("""
            {"rate_limits": {"ipv6_prefix_length": 56, "sign_in_per_ip": [{"limit": 50, "window_seconds": 60}],
                             "sign_in_per_account": [], "sign_up_per_ip": [{"limit": 3, "window_seconds": 10}],
                             "sign_in_per_account_any_client": [{"limit": 200, "window_seconds": 3600}],
                             "already_registered_per_recipient": [{"limit": 2, "window_seconds": 86400}]},
             "http": {"trusted_proxies": ["127.0.0.1/32", "fd00::/8"], "client_address_header": "forwarded"}}
            """)
        #expect(configuration.rateLimits.signInPerIP == [RateLimitRule(bucket: "sign_in.ip.1", limit: 50, window: 60)])
        #expect(configuration.rateLimits.signInPerAccount.isEmpty)
        #expect(configuration.rateLimits.signUpPerIP.first?.limit == 3)
        #expect(configuration.rateLimits.signInPerAccountAnyClient == [RateLimitRule(bucket: "sign_in.account_any.1", limit: 200, window: 3600)])
        #expect(configuration.rateLimits.alreadyRegisteredPerRecipient
                == [RateLimitRule(bucket: "already_registered.recipient.1", limit: 2, window: 86_400)])
        #expect(configuration.rateLimits.passwordResetPerIP == RateLimitPolicy().passwordResetPerIP, "unnamed rules keep defaults")
        #expect(configuration.rateLimits.ipKey("2001:db8:1:2ff::1") == "2001:db8:1:200::/56")
        #expect(configuration.clientAddresses.trustedProxies.map(\.description) == ["127.0.0.1/32", "fd00::/8"])
        #expect(configuration.clientAddresses.header == .forwarded)
        for (json, key) in [
            (#"{"http": {"trusted_proxies": ["127.0.0.1/33"]}}"#, "http.trusted_proxies[0]"),
            (#"{"http": {"trusted_proxies": "127.0.0.1"}}"#, "http.trusted_proxies"),
            (#"{"http": {"client_address_header": "X-Real-IP"}}"#, "http.client_address_header"),
            (#"{"rate_limits": {"sign_in_per_ip": [{"limit": 0, "window_seconds": 60}]}}"#, "rate_limits.sign_in_per_ip[0].limit"),
            (#"{"rate_limits": {"sign_in_per_ip": [{"limit": 5}]}}"#, "rate_limits.sign_in_per_ip[0].window_seconds"),
            (#"{"rate_limits": {"sign_in_per_ip": [{"limit": 5, "window_seconds": 9, "burst": 1}]}}"#, "rate_limits.sign_in_per_ip[0].burst"),
            (#"{"rate_limits": {"sign_in_per_ip_typo": []}}"#, "rate_limits.sign_in_per_ip_typo"),
            (#"{"rate_limits": {"enabled": 1}}"#, "rate_limits.enabled"),
        ] {
            #expect(throws: ConfigurationError.self, "\(json)") { _ = try load(json) }
            do { _ = try load(json) } catch let error as ConfigurationError { #expect(error.key == key, "\(json)") }
        }
    }
}
