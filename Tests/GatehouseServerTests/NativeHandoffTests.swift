import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseTesting
import Testing

/// Flow F2 in-process: the "system browser" and the "web view" are two cookie jars on one server,
/// with the provider simulator mounted (demo mode).
@Suite struct NativeHandoffTests {
    static let base = "http://127.0.0.1:8080"

    static func gatehouse() async throws -> TestGatehouse {
        let gatehouse = try await TestGatehouse.make { $0.demo = true }
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "demo-native", name: "Demo App", kind: .public, redirectURIs: ["com.example.demo:/oauth"], firstParty: true,
            metadata: #"{"callback_schemes": ["demoapp"], "bundle_ids": ["com.example.demo"]}"#))
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "other-native", name: "Other App", kind: .public, redirectURIs: ["com.example.other:/oauth"], firstParty: true,
            metadata: #"{"callback_schemes": ["otherapp"]}"#))
        return gatehouse
    }

    /// Follows a browser through start → Google (simulated picker) → callback → finish; returns the final Location.
    static func systemBrowserSignIn(_ gatehouse: TestGatehouse, app: String = "demo-native", challenge: String,
                                    email: String = "native@example.com", returnTo: String? = nil, cancel: Bool = false) async throws -> String {
        let browser = gatehouse.browser(ip: "198.51.100.20")
        var start = "/native/start?provider=google&app=\(app)&challenge=\(challenge)"
        if let returnTo { start += "&return_to=" + PercentDecoding.encode(returnTo) }
        let page = try await browser.get(start)
        guard page.status == 200 else { return "status \(page.status)" }
        let fields = ["csrf_token", "platform", "app", "challenge", "return_to"].compactMap { name in
            BrowserLikeClient.hiddenField(name, in: page.text).map { (name, $0) }
        }
        var response = try await browser.post("/auth/google", fields)
        var location = response.headers["Location"] ?? ""
        // The simulated Google picker: GET the authorize URL, POST its form back with an account.
        let authorize = try await browser.get(String(location.dropFirst(base.count)))
        let action = try #require(authorize.text.firstMatch(of: /action="([^"]+)"/).map { String($0.1) })
        var picker: [(String, String)] = [("email", email), ("name", "Native User"), ("action", cancel ? "cancel" : "allow")]
        for match in authorize.text.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)"/) {
            picker.append((String(match.1), String(match.2).replacingOccurrences(of: "&amp;", with: "&")))
        }
        response = try await browser.post(action.hasPrefix("http") ? String(action.dropFirst(base.count)) : action, picker)
        location = response.headers["Location"] ?? ""
        // Back at Gatehouse: callback, then finish in the same browser.
        for _ in 0..<4 where location.hasPrefix(base) || location.hasPrefix("/auth/") {
            response = try await browser.get(location.hasPrefix(base) ? String(location.dropFirst(base.count)) : location)
            location = response.headers["Location"] ?? "status \(response.status)"
        }
        return location
    }

    static func token(from callback: String) -> String? {
        URLComponents(string: callback)?.queryItems?.first { $0.name == "token" }?.value
    }

    @Test func handOffFromSystemBrowserToWebView() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier), returnTo: "/account")
        #expect(callback.hasPrefix("demoapp://auth-callback?token="), "ends at the app's scheme: \(callback)")
        let token = try #require(Self.token(from: callback))
        let webView = gatehouse.browser(ip: "198.51.100.21")
        #expect(try await webView.get("/native/session").status == 401)
        let redeem = try await webView.get("/native/redeem?token=\(token)&verifier=\(verifier)&app=demo-native")
        #expect(redeem.status == 303 && redeem.headers["Location"] == "/account")
        #expect(try await webView.get("/account").status == 200, "the web view is signed in")
        let status = try await webView.get("/native/session")
        #expect(status.status == 200 && status.text.contains("native@example.com") && status.text.contains("google"))
        let signOut = try await webView.send(.post, "/native/sign-out", headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(signOut.status == 200 && signOut.text.contains("gatehouse_session"))
        #expect(try await webView.get("/native/session").status == 401)
    }

    @Test func redeemingTwiceLateOrWithTheWrongVerifierFails() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        let attacker = gatehouse.browser(ip: "203.0.113.66")
        let wrong = try await attacker.get("/native/redeem?token=\(token)&verifier=\(PKCE.generateVerifier())")
        #expect(wrong.status == 400 && attacker.cookies["gatehouse_session"] == nil)
        let afterBurn = try await gatehouse.browser().get("/native/redeem?token=\(token)&verifier=\(verifier)")
        #expect(afterBurn.status == 400, "a stolen token gets one try, then it is gone")

        let verifier2 = PKCE.generateVerifier()
        let token2 = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier2))))
        let first = try await gatehouse.browser().get("/native/redeem?token=\(token2)&verifier=\(verifier2)")
        let second = try await gatehouse.browser().get("/native/redeem?token=\(token2)&verifier=\(verifier2)")
        #expect(first.status == 303 && second.status == 400)

        let verifier3 = PKCE.generateVerifier()
        let token3 = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier3))))
        gatehouse.clock.advance(121)
        #expect(try await gatehouse.browser().get("/native/redeem?token=\(token3)&verifier=\(verifier3)").status == 400, "expired after 2 minutes")
    }

    @Test func concurrentRedeemsExactlyOneWins() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<12 {
                group.addTask { try await gatehouse.browser(ip: "10.7.0.\(i)").get("/native/redeem?token=\(token)&verifier=\(verifier)").status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 303 }.count == 1 && statuses.filter { $0 == 400 }.count == 11)
    }

    @Test func tokenFromAnotherAppAndTamperedChallengeAreRefused() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let token = try #require(Self.token(from: try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier))))
        #expect(try await gatehouse.browser().get("/native/redeem?token=\(token)&verifier=\(verifier)&app=other-native").status == 400)
        // A challenge that is not a SHA-256: the start page refuses it.
        #expect(try await gatehouse.browser().get("/native/start?provider=google&app=demo-native&challenge=short").status == 400)
        // An app that is not registered (or has no callback scheme): no redirect anywhere.
        #expect(try await gatehouse.browser().get("/native/start?provider=google&app=web-only&challenge=\(PKCE.challenge(for: verifier))").status == 400)
        // Posting platform=native straight to the provider start with an unregistered app is refused too.
        let browser = gatehouse.browser()
        let page = try await browser.get("/sign-in")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        let direct = try await browser.post("/auth/google", [("csrf_token", csrf), ("platform", "native"), ("app", "evil-app"),
                                                             ("challenge", PKCE.challenge(for: verifier))])
        #expect(direct.status == 400)
    }

    @Test func aFailedNativeSignInIsReportedToTheApp() async throws {
        let gatehouse = try await Self.gatehouse()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: PKCE.generateVerifier()), cancel: true)
        #expect(callback.hasPrefix("demoapp://auth-callback?error="), "the app learns the sign-in failed: \(callback)")
        #expect(callback.contains("error_description=") && !callback.contains("token="))
        #expect(try await gatehouse.database.users.count() == 0)
    }

    @Test func offOriginReturnToIsDropped() async throws {
        let gatehouse = try await Self.gatehouse()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.systemBrowserSignIn(gatehouse, challenge: PKCE.challenge(for: verifier), returnTo: "https://evil.example/")
        let token = try #require(Self.token(from: callback))
        let redeem = try await gatehouse.browser().get("/native/redeem?token=\(token)&verifier=\(verifier)")
        #expect(redeem.headers["Location"] == "/account")
    }

    @Test func pathConfigurationFollowsTheRules() async throws {
        let gatehouse = try await Self.gatehouse()
        for platform in ["ios", "android"] {
            let response = try await gatehouse.browser().get("/configurations/\(platform)_v1.json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(document["settings"] is [String: Any])
            let rules = try #require(document["rules"] as? [[String: Any]])
            #expect(rules.allSatisfy { ($0["patterns"] as? [String])?.isEmpty == false && $0["properties"] is [String: Any] })
            let signIn = rules.first { ($0["patterns"] as? [String])?.contains("/sign-in$") == true }
            #expect((signIn?["properties"] as? [String: Any])?["context"] as? String == "modal")
        }
        let bridge = try await gatehouse.browser().get("/assets/gatehouse-bridge.js")
        #expect(bridge.status == 200 && bridge.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
        #expect(bridge.text.contains("sign-in-with-oauth") && bridge.text.contains("startPath") && bridge.text.contains("redeemPath"))
    }
}
