import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// `/oauth/authorize?…&provider=google`: one tap from the client's own "Sign in with Google" button
/// straight into the provider, back to the pending authorization.
@Suite struct ProviderHintTests {
    static let redirect = "https://app.example.test/callback"

    static func harnessWithClient() async throws -> ProviderHarness {
        let harness = try await ProviderHarness.make()
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "web", name: "Web", kind: .public, redirectURIs: [redirect], firstParty: true))
        return harness
    }

    static func authorizePath(_ extra: [(String, String)]) -> String {
        let verifier = String(repeating: "v", count: 43)
        return "/oauth/authorize?" + URLEncodedForm(pairs: [
            ("response_type", "code"), ("client_id", "web"), ("redirect_uri", redirect), ("scope", "openid email"),
            ("state", "st-1"), ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ] + extra).encoded
    }

    static func query(_ location: String?) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: location ?? "")?.queryItems ?? [] { result[item.name] = item.value }
        return result
    }

    @Test(arguments: ["google", "github", "apple"])
    func theHintGoesStraightToTheProviderAndBackToTheAuthorization(_ provider: String) async throws {
        let harness = try await Self.harnessWithClient()
        let browser = harness.browser()
        let start = try await browser.get(Self.authorizePath([("provider", provider)]))
        #expect(start.status == 303)
        let location = try #require(start.headers["Location"])
        #expect(location.contains("/_sim/\(provider)"), "no Gatehouse chooser in between: \(location)")
        #expect(start.headers["Set-Cookie"]?.contains("gatehouse_flow=") == true, "the flow is bound to this browser")

        // At the provider: pick the user and allow.
        let picker = try await browser.get(ProviderHarness.path(location))
        #expect(picker.status == 200)
        let answer = try await browser.post(PageHTML.formAction(picker.text) ?? "",
                                            PageHTML.hiddenFields(picker.text).filter { $0.0 != "csrf_token" }
                                                + [("email", "ada@example.com"), ("name", "Ada"), ("action", "allow")])
        let callback = answer.status == 200
            ? try await browser.post(ProviderHarness.path(PageHTML.formAction(answer.text)), PageHTML.hiddenFields(answer.text))
            : try await browser.get(ProviderHarness.path(answer.headers["Location"]))
        let finish = try await browser.get(try #require(callback.headers["Location"]))
        let back = try #require(finish.headers["Location"])
        #expect(back.hasPrefix("/oauth/authorize?") && !back.contains("provider="), "back to the pending request, hint spent")
        let approved = try await browser.get(back)
        let result = Self.query(approved.headers["Location"])
        #expect(approved.headers["Location"]?.hasPrefix(Self.redirect + "?") == true)
        #expect(result["code"] != nil && result["state"] == "st-1")
        #expect(try await harness.identities(email: "ada@example.com").map(\.provider) == [provider])
    }

    @Test func anUnknownProviderIsAnErrorRedirectToTheClient() async throws {
        let harness = try await Self.harnessWithClient()
        for bad in [[("provider", "myspace")], [("provider", "google"), ("provider", "github")], [("provider", "")]] {
            let response = try await harness.browser().get(Self.authorizePath(bad))
            #expect(response.status == 303)
            let result = Self.query(response.headers["Location"])
            #expect(response.headers["Location"]?.hasPrefix(Self.redirect + "?") == true)
            #expect(result["error"] == "invalid_request" && result["state"] == "st-1", "\(bad)")
            #expect(result["error_description"]?.isEmpty == false)
        }
        // An untrusted redirect URI still never gets a redirect, hint or not.
        let untrusted = try await harness.browser().get("/oauth/authorize?client_id=web&redirect_uri=https%3A%2F%2Fevil.example%2F&provider=nope")
        #expect(untrusted.status == 400 && untrusted.headers["Location"] == nil)
    }

    @Test func promptNoneWinsAndASignedInUserIsNotSentAway() async throws {
        let harness = try await Self.harnessWithClient()
        let none = try await harness.browser().get(Self.authorizePath([("provider", "google"), ("prompt", "none")]))
        #expect(Self.query(none.headers["Location"])["error"] == "login_required")

        let browser = harness.browser()
        #expect(try await harness.signIn("github", with: browser).final.status == 303)
        let signedIn = try await browser.get(Self.authorizePath([("provider", "google")]))
        #expect(Self.query(signedIn.headers["Location"])["code"] != nil, "already signed in: the hint is not needed")
    }
}
