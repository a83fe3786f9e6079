import Foundation
import GatehouseCrypto
import GatehouseProviders
import GatehouseTesting
import Testing

/// Each tampering ends on the sign-in page with the right message, an audit entry, and no account.
@Suite struct TamperingTests {
    enum Tamper: String, CaseIterable, Sendable { case nonce, unknownKey, otherAudience, expired }

    /// Re-signs the token endpoint's id_token after changing its claims.
    static func rewriteIDToken(_ harness: ProviderHarness, provider: String, _ tamper: Tamper) {
        let keys = provider == "apple" ? harness.simulator.apple.keys : harness.simulator.google.keys
        let stranger = try! RSASigningKey.generate()
        harness.faults.state.withLock { state in
            state.rewrite = { request, response in
                guard request.url.path.hasSuffix("/token"), var json = response.jsonObject,
                      let token = json["id_token"]?.stringValue, let jws = try? CompactJWS(token),
                      var claims = (try? JWTClaims(json: jws.payload))?.all else { return response }
                var key = keys.currentKey
                switch tamper {
                case .nonce: claims["nonce"] = .string("another-nonce")
                case .unknownKey: key = stranger
                case .otherAudience: claims["aud"] = .string("com.example.someone-else")
                case .expired: claims["exp"] = .integer(Int64(harness.clock.now.timeIntervalSince1970) - 3600)
                }
                json["id_token"] = .string(try! key.signJWT(claims, type: nil))
                return ProviderHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: JSONValue.object(json).jsonBytes)
            }
        }
    }

    @Test(arguments: ["apple", "google"], Tamper.allCases)
    func idTokenTamperingIsRefused(_ provider: String, _ tamper: Tamper) async throws {
        let harness = try await ProviderHarness.make()
        Self.rewriteIDToken(harness, provider: provider, tamper)
        let audits = try await harness.auditCount()
        let (callback, _) = try await harness.signIn(provider, with: harness.browser())
        #expect(callback.status == 400)
        #expect(callback.text.contains("could not be verified"))
        #expect(try await harness.users() == 0)
        #expect(try await harness.database.externalIdentities.find(provider: provider, subject: "x") == nil)
        #expect(try await harness.auditCount() == audits + 1)
    }

    @Test(arguments: ["apple", "google", "github"])
    func providerReturningAnErrorIsShown(_ provider: String) async throws {
        let harness = try await ProviderHarness.make()
        harness.faults.state.withLock { state in
            state.rewrite = { request, response in
                guard request.url.path.hasSuffix("/token") || request.url.path.hasSuffix("/access_token") else { return response }
                return ProviderHTTPResponse(status: 400, headers: ["Content-Type": "application/json"],
                                            body: Array(#"{"error":"invalid_grant"}"#.utf8))
            }
        }
        let (callback, _) = try await harness.signIn(provider, with: harness.browser())
        #expect(callback.status == 400)
        #expect(callback.text.contains("reported an error"))
        #expect(try await harness.users() == 0)
    }

    @Test(arguments: ["apple", "google"])
    func jwksDownMeansProviderUnavailable(_ provider: String) async throws {
        let harness = try await ProviderHarness.make()
        harness.faults.state.withLock { $0.downPaths = ["/auth/keys", "/certs"] }
        let (callback, _) = try await harness.signIn(provider, with: harness.browser())
        #expect(callback.status == 503)
        #expect(callback.text.contains("not reachable"))
        #expect(try await harness.users() == 0)
    }

    @Test func slowProviderBeyondTheTimeout() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        let start = try await browser.submit("/sign-in", to: "/auth/github", [])
        let picker = try await browser.get(ProviderHarness.path(start.headers["Location"]))
        let answer = try await browser.post(PageHTML.formAction(picker.text) ?? "",
                                            PageHTML.hiddenFields(picker.text) + [("email", "ada@example.com"), ("action", "allow")])
        // The provider would take 10 minutes: only the 1 s limit can end this request with a 503 (without it the
        // test would wait for the provider's real answer, a successful sign-in, and fail below). No wall-clock
        // bound: on a busy machine the cooperative pool may run the timer late, which proves nothing either way.
        harness.faults.state.withLock { $0.delay = .seconds(600) }
        let callback = try await browser.get(ProviderHarness.path(answer.headers["Location"]))
        #expect(callback.status == 503)
        #expect(callback.text.contains("not reachable"))
        #expect(try await harness.users() == 0)
    }
}
