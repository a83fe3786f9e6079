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

@Suite struct ProviderRevocationLoopTests {
    /// A revocation whose first attempt failed is retried by the background loop once due, with no sign-in traffic.
    @Test func loopRetriesDueRevocationsWithoutTraffic() async throws {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        #expect(try await harness.signIn("apple", with: browser).final.status == 303)
        harness.faults.state.withLock { $0.downPaths = ["/auth/revoke"] }
        #expect(try await browser.submit("/account", to: "/account/delete", []).status == 303)
        #expect(harness.simulator.apple.revocations.isEmpty)
        harness.faults.state.withLock { $0.downPaths = [] }
        let loop = ProviderRevocationLoop.start(app: harness.app, interval: .milliseconds(20))
        try await Task.sleep(for: .milliseconds(200))
        #expect(harness.simulator.apple.revocations.isEmpty, "not due before its backoff")
        harness.clock.advance(31)
        // Up to 30 s: a generous bound for shared CI cores; it normally takes one interval.
        for _ in 0..<1500 where harness.simulator.apple.revocations.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        await loop.stop()
        #expect(harness.simulator.apple.revocations.count == 1)
    }

    /// Stop cancels the sleep rather than waiting out the hour (no wall-clock bound: CI machines are shared).
    @Test(.timeLimit(.minutes(2))) func stopEndsTheLoopWithoutWaitingOutTheInterval() async throws {
        let harness = try await ProviderHarness.make()
        let loop = ProviderRevocationLoop.start(app: harness.app, interval: .seconds(3600))
        await loop.stop()
    }
}
