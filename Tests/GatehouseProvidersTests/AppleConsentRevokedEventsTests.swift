import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// Apple's `consent-revoked` ends the sessions that used Apple; the product hears of each.
@Suite struct AppleConsentRevokedEventsTests {
    @Test func consentRevokedQueuesALogoutTokenAndASessionEndedWebhook() async throws {
        let web = ClientRegistration(id: "web-app", name: "Web", kind: .confidential, redirectURIs: ["https://app.example.test/cb"],
                                     firstParty: true,
                                     metadata: ClientMetadata.setting(BackchannelLogoutRegistration.uriKey,
                                                                      to: "https://app.example.test/backchannel", in: "{}"))
        let harness = try await ProviderHarness.make { configuration in
            configuration.webhooks = [WebhookEndpoint(url: URL(string: "https://app.example.test/hooks")!,
                                                      secret: String(repeating: "s", count: 32), events: [.sessionEnded])]
            configuration.clients.append(ConfiguredClient(registration: web, secret: nil))
        }
        _ = try await harness.app.services.tokens.registry.register(web)
        let browser = harness.browser()
        #expect(try await harness.signIn("apple", with: browser).final.status == 303)
        let subject = harness.simulator.apple.subject(forEmail: "ada@example.com")
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        let session = try #require(try await harness.database.sessions.list(userId: user.id, now: harness.clock.now).first)
        #expect(try await harness.database.outboundDeliveries.list(limit: 50).isEmpty)

        let note = try harness.simulator.apple.notification(.init(kind: .consentRevoked, subject: subject, email: "ada@example.com",
                                                                  isPrivateEmail: false, eventTime: harness.clock.now),
                                                            clientID: "com.example.gatehouse.demo.web")
        let response = try await InProcessClient(harness.app.pipeline).send(.post, "/auth/apple/notifications",
                                                                           headers: ["Content-Type": "application/json"], body: note.body)
        #expect(response.status == 200)
        let queued = try await harness.database.outboundDeliveries.list(limit: 50)
        let sid = harness.app.services.events.sids.sid(for: session)
        let logout = try #require(queued.first { $0.kind == .backchannelLogout })
        #expect(logout.destination == "web-app")
        guard case .object(let claims)? = JSONValue(parsing: Array(logout.payload.utf8)) else { Issue.record("payload"); return }
        #expect(claims["sid"]?.stringValue == sid)
        #expect(claims["sub"]?.stringValue == user.id)
        let hook = try #require(queued.first { $0.kind == .webhook })
        guard case .object(let body)? = JSONValue(parsing: Array(hook.payload.utf8)), case .object(let data)? = body["data"] else {
            Issue.record("webhook payload"); return
        }
        #expect(body["type"]?.stringValue == "session.ended")
        #expect(data["reason"]?.stringValue == "apple_consent_revoked")
        #expect(data["sid"]?.stringValue == sid)
    }
}
