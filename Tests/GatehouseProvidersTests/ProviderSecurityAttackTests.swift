import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// The provider-side rules (account events, unlink, recent sign-in, token revocation), as attacks.
@Suite struct ProviderSecurityAttackTests {
    let webClient = "com.example.gatehouse.demo.web"

    func notify(_ harness: ProviderHarness, _ body: [UInt8]) async throws -> TestResponse {
        try await InProcessClient(harness.app.pipeline).send(.post, "/auth/apple/notifications",
                                                            headers: ["Content-Type": "application/json"], body: body)
    }

    func note(_ harness: ProviderHarness, _ kind: AppleNotificationEvent.Kind, at time: Date, subject: String) throws -> AppleNotification {
        try harness.simulator.apple.notification(.init(kind: kind, subject: subject, email: "ada@example.com", isPrivateEmail: false,
                                                       eventTime: time), clientID: webClient)
    }

    func appleUser() async throws -> (ProviderHarness, BrowserLikeClient, String) {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        #expect(try await harness.signIn("apple", with: browser).final.status == 303)
        return (harness, browser, harness.simulator.apple.subject(forEmail: "ada@example.com"))
    }

    // MARK: Item 8

    /// Item 8: a captured notification replayed, and Apple's out-of-order retry of an older event, change nothing.
    @Test func replayedAndOutOfOrderNotificationsAreIgnored() async throws {
        let (harness, _, subject) = try await appleUser()
        let start = harness.clock.now
        let disabled = try note(harness, .emailDisabled, at: start, subject: subject)
        #expect(try await notify(harness, disabled.body).status == 200)
        let enabled = try note(harness, .emailEnabled, at: start.addingTimeInterval(5), subject: subject)
        #expect(try await notify(harness, enabled.body).status == 200)
        #expect(try await harness.database.externalIdentities.find(provider: "apple", subject: subject)?.emailVerified == true)
        // The same signed notification again (a replay): still enabled.
        #expect(try await notify(harness, disabled.body).status == 200)
        #expect(try await harness.database.externalIdentities.find(provider: "apple", subject: subject)?.emailVerified == true)
        // A fresh signature over an older event (Apple retrying late): still enabled.
        let late = try note(harness, .emailDisabled, at: start.addingTimeInterval(-60), subject: subject)
        #expect(try await notify(harness, late.body).status == 200)
        #expect(try await harness.database.externalIdentities.find(provider: "apple", subject: subject)?.emailVerified == true)
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        let details = try await harness.database.auditLog.list(userId: user.id, limit: 50).map(\.event.details)
        #expect(details.contains { $0.contains(#""result":"replayed""#) } && details.contains { $0.contains(#""result":"superseded""#) })
    }

    /// Item 8: `account-delete` keeps an account that has another way in (here a password), unlinking Apple.
    @Test func accountDeleteKeepsAnAccountWithAnotherMethod() async throws {
        let (harness, browser, subject) = try await appleUser()
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        try await harness.database.users.update(id: user.id, [.passwordHash("$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g")],
                                                at: harness.clock.now)
        #expect(try await notify(harness, try note(harness, .accountDelete, at: harness.clock.now, subject: subject).body).status == 200)
        #expect(try await harness.users() == 1, "the account stays")
        #expect(try await harness.identities(email: "ada@example.com").isEmpty, "Apple is unlinked")
        #expect(try await browser.get("/account").status == 303, "the Apple session ended")
        let types = try await harness.database.auditLog.list(userId: user.id, limit: 50).map(\.event.type)
        #expect(types.contains("identity.unlinked") && !types.contains("account.deleted"))
    }

    /// Item 8: …and deletes an account Apple was the only way into.
    @Test func accountDeleteRemovesAnAppleOnlyAccount() async throws {
        let (harness, _, subject) = try await appleUser()
        #expect(try await notify(harness, try note(harness, .accountDelete, at: harness.clock.now, subject: subject).body).status == 200)
        #expect(try await harness.users() == 0)
    }

    // MARK: Unlink and Apple account events

    /// `consent-revoked` on an Apple-only account ends its sessions but leaves a way
    /// back in: signing in with Apple again works (old code: the identity was deleted, then 409 for ever).
    @Test func appleOnlyUserCanSignInAgainAfterRevokingConsent() async throws {
        let (harness, browser, subject) = try await appleUser()
        let revoked = try note(harness, .consentRevoked, at: harness.clock.now, subject: subject)
        #expect(try await notify(harness, revoked.body).status == 200)
        #expect(try await browser.get("/account").status == 303, "the Apple session ended")
        let again = harness.browser()
        let (_, final) = try await harness.signIn("apple", with: again)
        #expect(final.status == 303, "signs in again: \(final.status) \(final.text.prefix(300))")
        #expect(try await again.get("/account").status == 200)
        #expect(try await harness.users() == 1)
        // The same revocation replayed later does not end the new session.
        #expect(try await notify(harness, revoked.body).status == 200)
        #expect(try await again.get("/account").status == 200)
    }

    /// An account an older version left without any sign-in method (its only Apple identity
    /// deleted by consent-revoked) is recovered by signing in with Apple again, instead of a 409 for ever.
    @Test func accountLeftWithoutAnyMethodIsRecoveredByItsProvider() async throws {
        let (harness, _, subject) = try await appleUser()
        _ = try await harness.database.externalIdentities.delete(provider: "apple", subject: subject)
        let again = harness.browser()
        let (_, final) = try await harness.signIn("apple", with: again)
        #expect(final.status == 303)
        #expect(try await again.get("/account").status == 200)
        #expect(try await harness.users() == 1)
        #expect(try await harness.identities(email: "ada@example.com").count == 1)
    }

    /// …but an account that still has a way in is never taken over by email (the usual refusal).
    @Test func accountWithAPasswordIsNotRecoveredByEmail() async throws {
        let (harness, _, subject) = try await appleUser()
        _ = try await harness.database.externalIdentities.delete(provider: "apple", subject: subject)
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        try await harness.database.users.update(id: user.id, [.passwordHash("$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g")],
                                                at: harness.clock.now)
        let (_, final) = try await harness.signIn("apple", with: harness.browser())
        #expect(final.status == 409)
        #expect(try await harness.identities(email: "ada@example.com").isEmpty)
    }

    /// Item 17: two unlinks racing each other (real concurrent requests, rendered forms) never leave the
    /// account without a way to sign in (old code: check-then-delete, both passed the count).
    @Test func racingUnlinksLeaveOneMethod() async throws {
        for _ in 0..<3 {
            let (harness, browser, _) = try await appleUser()
            let (_, linked) = try await harness.signIn("github", with: browser, link: true)
            #expect(linked.status == 303 && linked.headers["Location"] == "/account?notice=identity-linked")
            #expect(try await harness.identities(email: "ada@example.com").count == 2)
            let page = try await browser.get("/account")
            let forms = (0..<3).compactMap { renderedForm(page.text, action: "/account/identities/unlink", occurrence: $0) }
            #expect(forms.count == 2)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for fields in forms { group.addTask { try await browser.post("/account/identities/unlink", fields).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [303, 409])
            #expect(try await harness.identities(email: "ada@example.com").count == 1)
        }
    }

    // MARK: Item 21

    /// Item 21: linking needs a recent sign-in; an old session is sent to sign in again first.
    @Test func linkingNeedsARecentSignIn() async throws {
        let (harness, browser, _) = try await appleUser()
        harness.clock.advance(11 * 60)
        let start = try await browser.submit("/account", to: "/auth/github/link", [])
        #expect(start.status == 303 && start.headers["Location"]?.hasPrefix("/sign-in?reauth=1") == true)
        #expect(try await harness.identities(email: "ada@example.com").count == 1)
        // Signing in again (here with Apple) makes the session recent, and linking works.
        let reauth = try #require(start.headers["Location"])
        #expect(try await harness.signIn("apple", with: browser, from: reauth).final.status == 303)
        #expect(try await harness.signIn("github", with: browser, link: true).final.headers["Location"] == "/account?notice=identity-linked")
    }

    // MARK: Provider-token revocation

    /// A token from native Sign in with Apple is revoked as the bundle id it was issued to —
    /// Apple (the simulator) ignores a revoke from the web Services ID — and only a confirmed revocation is
    /// audited as one. Item 23: the request only queued it; the job runner did the work.
    @Test func nativeTokenIsRevokedAsItsBundleID() async throws {
        let harness = try await NativeAppleSignInTests.harness()
        let app = harness.browser()
        let native = try NativeAppleSignInTests.authorization(harness)
        #expect(try await NativeAppleSignInTests.postJSON(app, NativeAppleSignInTests.fields(native)).status == 200)
        let identity = try #require(try await harness.identities(email: "ada@example.com").first)
        #expect(identity.tokenClientID == NativeAppleSignInTests.bundleID && identity.sealedRefreshToken != nil)
        #expect(try await app.submit("/account/delete", to: "/account/delete", [("confirm_email", "ada@example.com")]).status == 303)
        #expect(harness.simulator.apple.revocations.isEmpty, "the request only queued")
        #expect(await harness.app.processProviderRevocations() == 1)
        let revoked = harness.simulator.apple.revocations.filter(\.revoked)
        #expect(revoked.map(\.clientID) == [NativeAppleSignInTests.bundleID])
        #expect(try await harness.database.pendingRevocations.due(now: .distantFuture, limit: 10).isEmpty, "completed")
    }

    /// The retry cadence the README states: 30 s after the first failure, then doubling (1, 2, 4 … minutes).
    @Test func failedRevocationsBackOffAsDocumented() async throws {
        let (harness, browser, _) = try await appleUser()
        harness.faults.state.withLock { $0.downPaths = ["/auth/revoke"] }
        #expect(try await browser.submit("/account/delete", to: "/account/delete", [("confirm_email", "ada@example.com")]).status == 303)
        var delays: [TimeInterval] = []
        for _ in 0..<4 {
            #expect(await harness.app.processProviderRevocations() == 0)
            let row = try #require(try await harness.database.pendingRevocations.due(now: .distantFuture, limit: 1).first)
            delays.append(row.nextAttemptAt.timeIntervalSince(harness.clock.now).rounded())
            harness.clock.advance(row.nextAttemptAt.timeIntervalSince(harness.clock.now) + 1)
        }
        #expect(delays == [30, 60, 120, 240])
    }

    /// An Apple answer that did not revoke (200 and the token still refreshes) is a failure,
    /// retried later, never audited as a revocation.
    @Test func anAnswerThatDidNotRevokeIsAFailure() async throws {
        let (harness, browser, _) = try await appleUser()
        harness.faults.state.withLock { $0.fakeOKPaths = ["/auth/revoke"] }
        #expect(try await browser.submit("/account/delete", to: "/account/delete", [("confirm_email", "ada@example.com")]).status == 303)
        #expect(await harness.app.processProviderRevocations() == 0)
        let pending = try await harness.database.pendingRevocations.due(now: .distantFuture, limit: 10)
        #expect(pending.count == 1 && pending.first?.lastError == "provider_error:not_revoked" && pending.first?.attempts == 1,
                "still queued, as a failure")
        harness.faults.state.withLock { $0.fakeOKPaths = [] }
        #expect(await harness.app.processProviderRevocations() == 0, "backing off")
        harness.clock.advance(31)
        #expect(await harness.app.processProviderRevocations() == 1)
        #expect(harness.simulator.apple.revocations.filter(\.revoked).map(\.clientID) == [webClient])
    }
}
