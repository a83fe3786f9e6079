import Foundation
import GatehouseTesting
import Testing

/// Deleting an account asks for a fresh sign-in; a user without a password is never asked for one: they sign in
/// with their provider again (``RecentAuthentication``), then type their email on the deletion page.
@Suite struct AccountDeletionReauthTests {
    @Test func aProviderOnlyUserSignsInAgainInsteadOfTypingAPassword() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        #expect(try await harness.signIn("google", with: browser).final.status == 303)
        let fresh = try await browser.get("/account/delete")
        #expect(fresh.status == 200 && !fresh.text.contains(#"name="password""#) && fresh.text.contains(#"name="confirm_email""#))

        harness.clock.advance(301)   // the provider sign-in is no longer fresh
        let stale = try await browser.get("/account/delete")
        #expect(!stale.text.contains(#"name="password""#) && !stale.text.contains(#"name="confirm_email""#))
        #expect(stale.text.contains(#"action="/auth/google""#), "the page offers signing in with the provider again")
        let refused = try await browser.submit("/account/delete", to: "/account/delete", [("password", ""), ("confirm_email", "ada@example.com")])
        #expect(refused.status == 403)
        #expect(try await harness.users() == 1)

    }
}
