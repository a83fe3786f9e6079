import Foundation
import GatehouseCrypto
import GatehouseProviders
import GatehouseStore
import GatehouseTesting
import Testing

@Suite struct SignInFlowTests {
    @Test(arguments: ["apple", "google", "github"])
    func happyPathCreatesAccountSessionAndIdentity(_ provider: String) async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        let (_, final) = try await harness.signIn(provider, with: browser)
        #expect(final.status == 303)
        #expect(final.headers["Location"] == "/account")
        let account = try await browser.get("/account")
        #expect(account.status == 200)
        #expect(account.text.contains("ada@example.com"))
        let identities = try await harness.identities(email: "ada@example.com")
        #expect(identities.map(\.provider) == [provider])
        if provider == "apple" {
            #expect(identities.first?.displayName == "Ada Lovelace")   // from the first-authorization `user` JSON
            #expect(identities.first?.sealedRefreshToken != nil)
        }
        // Second sign-in: same account, no second user.
        let again = harness.browser()
        #expect(try await harness.signIn(provider, with: again).final.status == 303)
        #expect(try await harness.users() == 1)
    }

    @Test func returnToSurvivesTheRoundTrip() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        let page = try await browser.get("/sign-in?return_to=%2Foauth%2Fauthorize%3Fclient_id%3Dx")
        let csrf = BrowserLikeClient.hiddenField("csrf_token", in: page.text) ?? ""
        let start = try await browser.post("/auth/google", [("csrf_token", csrf), ("return_to", "/oauth/authorize?client_id=x")])
        let picker = try await browser.get(ProviderHarness.path(start.headers["Location"]))
        let answer = try await browser.post(PageHTML.formAction(picker.text) ?? "",
                                            PageHTML.hiddenFields(picker.text) + [("email", "ada@example.com"), ("action", "allow")])
        let callback = try await browser.get(ProviderHarness.path(answer.headers["Location"]))
        let final = try await browser.get(callback.headers["Location"] ?? "")
        #expect(final.headers["Location"] == "/oauth/authorize?client_id=x")
    }

    @Test(arguments: ["apple", "google", "github"])
    func cancellingAtTheProviderShowsAMessage(_ provider: String) async throws {
        let harness = try await ProviderHarness.make()
        let (_, final) = try await harness.signIn(provider, with: harness.browser(), cancel: true)
        #expect(final.status == 400)
        #expect(final.text.contains("Sign-in was cancelled"))
        #expect(try await harness.users() == 0)
    }

    @Test func replayedAndWrongStateAreRefused() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        var captured: [(String, String)] = []
        _ = try await harness.signIn("apple", with: browser, tamperCallback: { captured = $0; return $0 })
        let users = try await harness.users()
        let replay = try await browser.post("/auth/apple/callback", captured)
        #expect(replay.status == 400)
        #expect(replay.text.contains("not valid any more"))
        let wrong = try await harness.signIn("apple", with: harness.browser(), email: "bob@example.com",
                                             tamperCallback: { $0.map { $0.0 == "state" ? ("state", "forged") : $0 } })
        #expect(wrong.final.status == 400)
        #expect(wrong.final.text.contains("not valid any more"))
        #expect(try await harness.users() == users)
    }

    @Test func finishingInAnotherBrowserIsRefused() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        let start = try await browser.submit("/sign-in", to: "/auth/google", [])
        let picker = try await browser.get(ProviderHarness.path(start.headers["Location"]))
        let answer = try await browser.post(PageHTML.formAction(picker.text) ?? "",
                                            PageHTML.hiddenFields(picker.text) + [("email", "ada@example.com"), ("action", "allow")])
        let callback = try await browser.get(ProviderHarness.path(answer.headers["Location"]))
        let other = try await harness.browser().get(callback.headers["Location"] ?? "")
        #expect(other.status == 400)
        #expect(try await harness.users() == 0)
    }

    @Test func unverifiedGitHubEmailIsRefused() async throws {
        let harness = try await ProviderHarness.make()
        let (_, final) = try await harness.signIn("github", with: harness.browser(), picker: [("unverified_email", "true")])
        #expect(final.status == 400)
        #expect(final.text.contains("not verified"))
        #expect(try await harness.users() == 0)
    }
}
