import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// The typed native flow value: what `/native/start` carries to the provider's finish. A table of starts
/// (a registered app, an S256 challenge, a registered callback, a link ticket minted by the same app's web
/// view for the same challenge), the value's round trip through storage, and the stored values it refuses.
@Suite struct NativeFlowTests {
    static let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
    static let otherChallenge = PKCE.challenge(for: String(repeating: "w", count: 43))

    enum Expected: Sendable, Equatable {
        case started(linkUserId: String?)
        case refused(NativeFlow.Refusal)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var app: String? = "app"
        var challenge: String? = NativeFlowTests.challenge
        var callback: String? = nil
        /// A link ticket minted by u1's web view of `ticketApp` for `ticketChallenge`.
        var ticket = false
        var ticketApp = "app"
        var ticketChallenge = NativeFlowTests.challenge
        /// Seconds between minting the ticket and starting.
        var ticketAge: TimeInterval = 0
        var ticketSpent = false
        let expected: Expected
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(name: "a sign-in to the app's scheme", expected: .started(linkUserId: nil)),
        Case(name: "a sign-in to a registered https callback", callback: "https://app.example.test/cb", expected: .started(linkUserId: nil)),
        Case(name: "an app that is not registered", app: "nope", expected: .refused(.unknownApp)),
        Case(name: "no app", app: nil, expected: .refused(.unknownApp)),
        Case(name: "a challenge that is not S256", challenge: "short", expected: .refused(.invalidChallenge)),
        Case(name: "no challenge", challenge: nil, expected: .refused(.invalidChallenge)),
        Case(name: "a callback the app did not register", callback: "https://evil.example/cb", expected: .refused(.unknownCallback)),
        Case(name: "a link with the ticket of the same web view", ticket: true, expected: .started(linkUserId: "u1")),
        Case(name: "a link ticket sent on with another challenge", challenge: NativeFlowTests.otherChallenge, ticket: true,
             expected: .refused(.invalidLinkTicket)),
        Case(name: "another app's link ticket", ticket: true, ticketApp: "other", expected: .refused(.invalidLinkTicket)),
        Case(name: "an expired link ticket", ticket: true, ticketAge: HandoffConfirmations.linkTicketLifetime + 1,
             expected: .refused(.invalidLinkTicket)),
        Case(name: "a spent link ticket", ticket: true, ticketSpent: true, expected: .refused(.invalidLinkTicket)),
    ]

    @Test(arguments: cases)
    func start(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let now = Date()
        try await database.users.create(User(id: "u1", email: "u1@example.test", displayName: nil, passwordHash: "hash", emailVerified: true,
                                             disabled: false, createdAt: now, updatedAt: now))
        let registry = ClientRegistry(store: database.oauthClients)
        for id in ["app", "other"] {
            _ = try await registry.register(ClientRegistration(id: id, name: id, kind: .public, redirectURIs: ["com.example.\(id):/cb"], metadata: """
                {"callback_schemes":["com.example.\(id)"],"callback_urls":["https://\(id).example.test/cb"]}
                """))
        }
        let minting = HandoffConfirmations(store: database.oneTimeTokens, clock: IdentityClock { now })
        let starting = HandoffConfirmations(store: database.oneTimeTokens, clock: IdentityClock { now.addingTimeInterval(item.ticketAge) })
        var ticket: String?
        if item.ticket {
            ticket = try await minting.mintLinkTicket(userId: "u1", appID: item.ticketApp, challenge: item.ticketChallenge)
            if item.ticketSpent { _ = try await minting.takeLinkTicket(ticket!, appID: item.ticketApp, challenge: item.ticketChallenge) }
        }

        let got: Expected
        do {
            let (flow, app) = try await NativeFlow.start(app: item.app, challenge: item.challenge, callback: item.callback, linkTicket: ticket,
                                                         apps: NativeAppDirectory(registry: registry), tickets: starting)
            #expect(flow.appID == app.clientID && flow.challenge == item.challenge && flow.callback == (item.callback ?? "scheme"))
            got = .started(linkUserId: flow.linkUserId)
        } catch let refusal as NativeFlow.Refusal {
            got = .refused(refusal)
        }
        #expect(got == item.expected)
        if let ticket {
            // Whatever the answer, a ticket is spent by its first presentation (or was dead already).
            #expect(try await starting.takeLinkTicket(ticket, appID: item.ticketApp, challenge: item.ticketChallenge) == nil)
        }
        await database.close()
    }

    @Test func roundTripThroughStorage() throws {
        for flow in [NativeFlow(appID: "app", challenge: Self.challenge, callback: "scheme"),
                     NativeFlow(appID: "app", challenge: Self.challenge, callback: "https://app.example.test/cb", linkUserId: "u1")] {
            let flow = try #require(flow)
            let decoded = try JSONDecoder().decode(NativeFlow.self, from: JSONEncoder().encode(flow))
            #expect(decoded == flow)
        }
        // The shape flows in flight were stored with (a dictionary of strings) reads as the same value.
        let stored = #"{"app":"app","challenge":"\#(Self.challenge)","callback":"scheme","link_user":"u1"}"#
        #expect(try JSONDecoder().decode(NativeFlow.self, from: Data(stored.utf8))
                == NativeFlow(appID: "app", challenge: Self.challenge, callback: "scheme", linkUserId: "u1"))
    }

    @Test(arguments: [
        #"{"challenge":"\#(NativeFlowTests.challenge)","callback":"scheme"}"#,
        #"{"app":"","challenge":"\#(NativeFlowTests.challenge)","callback":"scheme"}"#,
        #"{"app":"app","challenge":"not-a-challenge","callback":"scheme"}"#,
        #"{"app":"app","challenge":"\#(NativeFlowTests.challenge)","callback":"http://app.example.test/cb"}"#,
        #"{"app":"app","challenge":"\#(NativeFlowTests.challenge)","callback":"javascript:alert(1)"}"#,
        #"{"app":"app","challenge":"\#(NativeFlowTests.challenge)","callback":"scheme","link_user":""}"#,
        #"{"app":"app","challenge":7,"callback":"scheme"}"#,
    ])
    func aTamperedStoredValueIsRefused(_ stored: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NativeFlow.self, from: Data(stored.utf8)) }
    }
}
