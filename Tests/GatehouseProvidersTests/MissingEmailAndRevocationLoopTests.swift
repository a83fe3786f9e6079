import Foundation
import GatehouseProviders
import GatehouseServer
import GatehouseTesting
import Testing

@Suite struct MissingEmailTests {
    /// GitHub with no email address at all (`/user/emails` empty, as for a token without `user:email`):
    /// back on the sign-in page with the message, an audit entry, and no account, identity or session.
    @Test func gitHubWithoutAnyEmailEndsOnTheSignInPage() async throws {
        let harness = try await ProviderHarness.make()
        harness.faults.state.withLock {
            $0.rewrite = { request, response in
                request.url.path.hasSuffix("/user/emails") ? ProviderHTTPResponse(status: 200, body: Array("[]".utf8)) : response
            }
        }
        let audits = try await harness.auditCount()
        let browser = harness.browser()
        let (_, final) = try await harness.signIn("github", with: browser)
        #expect(final.status == 400)
        #expect(final.text.contains("did not share an email address"))
        #expect(final.text.contains("Sign in with GitHub"), "the sign-in page, with its buttons")
        #expect(try await harness.users() == 0)
        #expect(try await harness.auditCount() == audits + 1, "the failure is audited")
        #expect(try await browser.get("/account").status == 303, "no session")
    }
}

@Suite struct ProviderRevocationJobTests {
    /// A request only enqueues; the maintenance job runner (lease holder) revokes, with no
    /// sign-in traffic, and a run that does not hold the lease revokes nothing.
    @Test func maintenanceRunnerRevokesQueuedTokensAndOnlyTheLeaseHolderDoes() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        #expect(try await harness.signIn("apple", with: browser).final.status == 303)
        #expect(try await browser.submit("/account/delete", to: "/account/delete", [("confirm_email", "ada@example.com")]).status == 303)
        #expect(harness.simulator.apple.revocations.isEmpty, "the request only queued the revocation")
        let holder = harness.app.makeMaintenance()
        let other = harness.app.makeMaintenance()
        #expect(try await holder.runOnce().jobs.first { $0.name == "provider_revocations" }?.done == 1)
        #expect(try await other.runOnce().skipped, "another process does not run the jobs while the lease is held")
        #expect(harness.simulator.apple.revocations.map(\.revoked) == [true])
    }
}
