import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// `/oauth/authorize`'s decision as one table (Fosite's OpenID validator cases): who is signed in and how
/// long ago, the request's `prompt`, `max_age` and `id_token_hint`, the client's kind, and the one decision
/// each combination must give.
@Suite struct AuthorizationDecisionTests {
    enum Expected: Sendable, Equatable {
        case approve, signIn(reauthenticate: Bool), ask(AuthorizationService.ApprovalStep), unconfirmedEmail, stepUp
        case error(OAuthError.Code)
    }

    enum Hint: Sendable { case none, own, someoneElse, garbage }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// `web` (confidential first-party: approved at once), `partner` (third-party: consent), `app`
        /// (public with a custom-scheme redirect: "continue as").
        var client = "web"
        var parameters: [String: String] = [:]
        /// Seconds since the signed-in session started; nil: nobody is signed in.
        var signedInFor: TimeInterval? = 120
        var resumed = false
        var hint = Hint.none
        var unconfirmed = false
        /// The session's RFC 8176 methods.
        var methods = ["pwd"]
        let expected: Expected
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(name: "nobody signed in", signedInFor: nil, expected: .signIn(reauthenticate: false)),
        Case(name: "nobody signed in, prompt=none", parameters: ["prompt": "none"], signedInFor: nil, expected: .error(.loginRequired)),
        Case(name: "signed in, first-party confidential client", expected: .approve),
        Case(name: "prompt=login asks again", parameters: ["prompt": "login"], expected: .signIn(reauthenticate: true)),
        Case(name: "prompt=login, back from a sign-in made after the request", parameters: ["prompt": "login"], signedInFor: -1,
             resumed: true, expected: .approve),
        Case(name: "prompt=login, back without a newer sign-in", parameters: ["prompt": "login"], resumed: true,
             expected: .signIn(reauthenticate: true)),
        Case(name: "max_age shorter than the session", parameters: ["max_age": "60"], expected: .signIn(reauthenticate: true)),
        Case(name: "max_age longer than the session", parameters: ["max_age": "600"], expected: .approve),
        Case(name: "max_age=0 is prompt=login", parameters: ["max_age": "0"], expected: .signIn(reauthenticate: true)),
        Case(name: "max_age with prompt=none", parameters: ["max_age": "60", "prompt": "none"], expected: .error(.loginRequired)),
        Case(name: "id_token_hint naming the signed-in user", hint: .own, expected: .approve),
        Case(name: "id_token_hint naming someone else", hint: .someoneElse, expected: .signIn(reauthenticate: true)),
        Case(name: "id_token_hint that is not our ID token", hint: .garbage, expected: .signIn(reauthenticate: true)),
        Case(name: "third-party client without consent", client: "partner", expected: .ask(.consent)),
        Case(name: "third-party client, prompt=none", client: "partner", parameters: ["prompt": "none"], expected: .error(.consentRequired)),
        Case(name: "public client with a custom-scheme redirect", client: "app", expected: .ask(.confirm)),
        Case(name: "public client, prompt=none", client: "app", parameters: ["prompt": "none"], expected: .error(.interactionRequired)),
        Case(name: "an unconfirmed address", unconfirmed: true, expected: .unconfirmedEmail),
        Case(name: "an unconfirmed address, prompt=none", parameters: ["prompt": "none"], unconfirmed: true, expected: .error(.accessDenied)),
        // Step-up: acr_values and the client's require_mfa ask for a stronger sign-in, never answered with a lower acr.
        Case(name: "acr_values mfa, password-only session", parameters: ["acr_values": mfa], expected: .stepUp),
        Case(name: "acr_values mfa, session with a second factor", parameters: ["acr_values": mfa], methods: ["pwd", "otp", "mfa"],
             expected: .approve),
        Case(name: "acr_values mfa, passkey with user verification", parameters: ["acr_values": mfa], methods: ["hwk", "user", "mfa"],
             expected: .approve),
        Case(name: "acr_values mfa, passkey without user verification", parameters: ["acr_values": mfa], methods: ["swk", "user"],
             expected: .stepUp),
        Case(name: "acr_values sfa or mfa: the weaker is acceptable", parameters: ["acr_values": sfa + " " + mfa], expected: .approve),
        Case(name: "acr_values of another vocabulary ask for nothing", parameters: ["acr_values": "urn:example:acr:strong"], expected: .approve),
        Case(name: "acr_values mfa with prompt=none", parameters: ["acr_values": mfa, "prompt": "none"], expected: .error(.interactionRequired)),
        Case(name: "claims with an essential acr", parameters: ["claims": #"{"id_token":{"acr":{"essential":true,"values":["urn:gatehouse:acr:mfa"]}}}"#],
             expected: .stepUp),
        Case(name: "claims with a voluntary acr ask for nothing", parameters: ["claims": #"{"id_token":{"acr":{"values":["urn:gatehouse:acr:mfa"]}}}"#],
             expected: .approve),
        Case(name: "a require_mfa client, password-only session", client: "strict", expected: .stepUp),
        Case(name: "a require_mfa client, session with a second factor", client: "strict", methods: ["pwd", "otp", "mfa"], expected: .approve),
        Case(name: "a require_mfa client asks for a sign-in first", client: "strict", signedInFor: nil, expected: .signIn(reauthenticate: false)),
        Case(name: "max_age before acr: an old session signs in again first", parameters: ["acr_values": mfa, "max_age": "60"],
             expected: .signIn(reauthenticate: true)),
    ]
    static let mfa = "urn:gatehouse:acr:mfa", sfa = "urn:gatehouse:acr:sfa"

    static let redirects = ["web": "https://web.example.test/cb", "partner": "https://partner.example.test/cb", "app": GrantFixture.redirect,
                            "strict": "https://strict.example.test/cb"]

    @Test(arguments: cases)
    func decide(_ item: Case) async throws {
        let f = try await GrantFixture()
        let now = f.now
        if item.client == "strict" {
            _ = try await f.service.registry.register(ClientRegistration(
                id: "strict", name: "Strict", kind: .confidential, redirectURIs: [Self.redirects["strict"]!],
                grantTypes: ["authorization_code"], firstParty: true, metadata: #"{"require_mfa":true}"#))
        }
        if item.unconfirmed { _ = try await f.database.users.update(id: "u1", [.emailVerified(false)], at: now) }
        let user = try #require(try await f.database.users.find(id: "u1"))
        var parameters = ["response_type": "code", "client_id": item.client, "redirect_uri": Self.redirects[item.client]!,
                          "scope": "openid", "code_challenge": String(repeating: "c", count: 43), "code_challenge_method": "S256"]
        parameters.merge(item.parameters) { $1 }
        switch item.hint {
        case .none: break
        case .own: parameters["id_token_hint"] = try await Self.idToken(f, user: "u1")
        case .someoneElse:
            try await f.database.users.create(User(id: "u2", email: "bob@example.test", displayName: nil, passwordHash: nil,
                                                   emailVerified: true, createdAt: now))
            parameters["id_token_hint"] = try await Self.idToken(f, user: "u2")
        case .garbage: parameters["id_token_hint"] = "e30.e30.sig"
        }
        let request = try await AuthorizationRequestParser(registry: f.service.registry).parse(parameters.mapValues { [$0] })
        let signedIn = item.signedInFor.map { age in
            ActiveSession(session: Session(idHash: TokenHash(Array(repeating: 1, count: 32)), userId: "u1", createdAt: now.addingTimeInterval(-age),
                                           lastSeenAt: now, idleExpiresAt: now.addingTimeInterval(3600),
                                           absoluteExpiresAt: now.addingTimeInterval(7200), ip: nil, userAgent: nil, authMethods: item.methods),
                          user: user)
        }
        let decider = AuthorizationDecider(authorization: AuthorizationService(codes: f.database.authorizationCodes, consents: f.database.consents,
                                                                               flowStates: f.database.flowStates, settings: GrantFixture.settings,
                                                                               clock: f.identityClock),
                                           hints: IDTokenHint(settings: GrantFixture.settings, keys: f.keys, clock: f.identityClock))
        let decision = try await decider.decide(request, signedIn: signedIn, requestedAt: now, resumed: item.resumed)
        let got: Expected = switch decision {
        case .approve: .approve
        case .signIn(let reauthenticate): .signIn(reauthenticate: reauthenticate)
        case .ask(let step, _): .ask(step)
        case .unconfirmedEmail: .unconfirmedEmail
        case .stepUp: .stepUp
        case .error(let code, _): .error(code)
        }
        #expect(got == item.expected)
    }

    /// An ID token of ours for `user`, issued to `web` by the code grant.
    static func idToken(_ f: GrantFixture, user: String) async throws -> String {
        let code = try await f.code(client: "web", user: user, redirect: redirects["web"]!, scope: "openid", challengeFor: nil)
        let response = try await f.token("web", ["grant_type": "authorization_code", "code": code, "redirect_uri": redirects["web"]!]).get()
        return try #require(response.idToken)
    }
}
