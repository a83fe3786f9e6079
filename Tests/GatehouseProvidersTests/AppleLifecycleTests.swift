import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseProviderSimulator
import GatehouseTesting
import Testing

@Suite struct AppleLifecycleTests {
    func post(_ harness: ProviderHarness, _ body: [UInt8]) async throws -> TestResponse {
        try await InProcessClient(harness.app.pipeline).send(.post, "/auth/apple/notifications",
                                                            headers: ["Content-Type": "application/json"], body: body)
    }

    func signedUpWithApple() async throws -> (ProviderHarness, BrowserLikeClient, String) {
        let harness = try await ProviderHarness.make()
        let browser = harness.browser()
        #expect(try await harness.signIn("apple", with: browser).final.status == 303)
        return (harness, browser, harness.simulator.apple.subject(forEmail: "ada@example.com"))
    }

    var clientID: String { "com.example.gatehouse.demo.web" }

    @Test(arguments: [AppleNotificationEvent.Kind.emailDisabled, .emailEnabled, .consentRevoked, .accountDelete])
    func eachEventIsHandled(_ kind: AppleNotificationEvent.Kind) async throws {
        let (harness, browser, subject) = try await signedUpWithApple()
        let note = try harness.simulator.apple.notification(.init(kind: kind, subject: subject, email: "ada@example.com",
                                                                  isPrivateEmail: false, eventTime: harness.clock.now), clientID: clientID)
        #expect(try await post(harness, note.body).status == 200)
        let identity = try await harness.database.externalIdentities.find(provider: "apple", subject: subject)
        switch kind {
        case .emailDisabled: #expect(identity?.emailVerified == false)
        case .emailEnabled: #expect(identity?.emailVerified == true)
        case .consentRevoked:
            // Apple is this account's only way in: kept (without Apple's voided token) so the user can come back.
            #expect(identity != nil && identity?.sealedRefreshToken == nil)
            #expect(try await browser.get("/account").status == 303, "the Apple session ended")
        case .accountDelete:
            #expect(try await harness.users() == 0)
        }
    }

    @Test func badSignatureIsRejected() async throws {
        let (harness, _, subject) = try await signedUpWithApple()
        let note = try harness.simulator.apple.notification(.init(kind: .accountDelete, subject: subject, eventTime: harness.clock.now),
                                                            clientID: clientID)
        var parts = note.jwt.split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let forged = JSONValue.object(["payload": .string(parts.joined(separator: "."))]).jsonBytes
        #expect(try await post(harness, forged).status == 400)
        #expect(try await post(harness, Array("not json".utf8)).status == 400)
        let otherAudience = try harness.simulator.apple.notification(.init(kind: .accountDelete, subject: subject), clientID: "com.other")
        #expect(try await post(harness, otherAudience.body).status == 400)
        #expect(try await harness.users() == 1)
    }

    @Test func accountDeletionRevokesAtAppleAndRetries() async throws {
        let (harness, browser, _) = try await signedUpWithApple()
        harness.faults.state.withLock { $0.downPaths = ["/auth/revoke"] }
        let deleted = try await browser.submit("/account/delete", to: "/account/delete", [("confirm_email", "ada@example.com")])
        #expect(deleted.status == 303)
        #expect(try await harness.users() == 0)
        #expect(harness.simulator.apple.revocations.isEmpty)
        #expect(await harness.app.processProviderRevocations() == 0, "Apple is down: the first attempt fails")
        harness.faults.state.withLock { $0.downPaths = [] }
        #expect(await harness.app.processProviderRevocations() == 0, "not due yet")
        harness.clock.advance(31)
        #expect(await harness.app.processProviderRevocations() == 1)
        #expect(harness.simulator.apple.revocations.count == 1)
        #expect(harness.simulator.apple.revocations.first?.tokenTypeHint == "refresh_token")
        #expect(harness.simulator.apple.revocations.first?.revoked == true)
    }
}
