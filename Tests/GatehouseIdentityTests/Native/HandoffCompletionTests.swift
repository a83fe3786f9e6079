import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// The hand-off redeem's use case as a table: a case mints a token (a sign-in or a link), redeems it in a
/// web view where someone may be signed in, and names the one outcome it expects, whether a session was
/// started and whether the provider identity was linked — which happens only here, never before.
@Suite struct HandoffCompletionTests {
    static let verifier = String(repeating: "v", count: 43)

    enum Expected: Sendable, Equatable {
        case signedIn, linked, otherAccount
        case linkRefused(ExternalSignInRefusal)
        case refused(HandoffTokens.Failure)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var link = false
        /// The link's provider identity already belongs to u2.
        var linkedElsewhere = false
        var disabled = false
        /// Who is signed in where the token is redeemed.
        var signedIn: String? = nil
        var verifier = HandoffCompletionTests.verifier
        var app: String? = "app"
        /// Redeem the token once before the case's redeem.
        var spent = false
        let expected: Expected
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(name: "a sign-in hand-off", expected: .signedIn),
        Case(name: "a sign-in replaces the session of whoever was signed in", signedIn: "u2", expected: .signedIn),
        Case(name: "a link for the account signed in here", link: true, signedIn: "u1", expected: .linked),
        Case(name: "a link while another account is signed in", link: true, signedIn: "u2", expected: .otherAccount),
        Case(name: "a link with nobody signed in", link: true, expected: .otherAccount),
        Case(name: "a link of an identity another account has", link: true, linkedElsewhere: true, signedIn: "u1",
             expected: .linkRefused(.linkedElsewhere)),
        Case(name: "a link redeemed without the ticket web view's verifier", link: true, signedIn: "u1",
             verifier: String(repeating: "w", count: 43), expected: .refused(.wrongVerifier)),
        Case(name: "a link redeemed twice", link: true, signedIn: "u1", spent: true, expected: .refused(.invalidToken)),
        Case(name: "a verifier this web view does not hold", verifier: String(repeating: "w", count: 43), expected: .refused(.wrongVerifier)),
        Case(name: "another app's token", app: "other", expected: .refused(.wrongApp)),
        Case(name: "a token already spent", spent: true, expected: .refused(.invalidToken)),
        Case(name: "a disabled account", disabled: true, expected: .refused(.invalidToken)),
    ]

    @Test(arguments: cases)
    func complete(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let now = Date()
        for id in ["u1", "u2"] {
            try await database.users.create(User(id: id, email: "\(id)@example.test", displayName: nil, passwordHash: "hash",
                                                 emailVerified: true, disabled: id == "u1" && item.disabled, createdAt: now, updatedAt: now))
        }
        if item.linkedElsewhere {
            try await database.externalIdentities.create(ExternalIdentity(provider: "google", subject: "g-victim", userId: "u2", createdAt: now))
        }
        let handoffs = HandoffTokens(store: database.oneTimeTokens)
        let sessions = SessionService(database: database)
        let audit = AuditTrail(store: database.auditLog)
        let linker = ExternalIdentityService(identities: database.externalIdentities, users: database.users, clock: .system, audit: audit, linkVerifiedEmails: false, trustsEmail: { _ in true })
        let completion = HandoffCompletion(handoffs: handoffs, users: database.users, sessions: sessions, linker: linker, audit: audit)
        let context = ClientContext(ip: "192.0.2.1", userAgent: "handoff-tests")
        let token = try await handoffs.mint(userId: "u1", appID: "app", challenge: PKCE.challenge(for: Self.verifier), authMethods: ["apple"],
                                            returnTo: "/welcome", link: item.link ? Self.proven : nil)
        if item.spent { _ = try? await handoffs.redeem(token: token, verifier: Self.verifier, appID: "app") }
        #expect(try await database.externalIdentities.list(userId: "u1").isEmpty, "nothing is linked before the redeem")
        let current = try await item.signedIn.asyncSession(sessions, context)

        let outcome = try await completion.complete(token: token, verifier: item.verifier, appID: item.app,
                                                    signedInUserId: item.signedIn, sessionToken: current, context: context)

        let got: Expected
        switch outcome {
        case .signedIn(let user, let session, let returnTo):
            #expect(user.id == "u1" && session.session.userId == "u1" && returnTo == "/welcome")
            got = .signedIn
        case .linked(let returnTo):
            #expect(returnTo == "/welcome")
            got = .linked
        case .otherAccount: got = .otherAccount
        case .linkRefused(let refusal, let provider):
            #expect(provider == "google")
            got = .linkRefused(refusal)
        case .refused(let failure): got = .refused(failure)
        }
        #expect(got == item.expected)
        // The link is written for the redeem that says "linked", and for no other.
        let linked = try await database.externalIdentities.list(userId: "u1").map(\.subject)
        #expect(linked == (item.expected == .linked ? ["g-victim"] : []))
        // A sign-in starts one session for u1 and ends the web view's previous one; nothing else changes sessions.
        let u1Sessions = try await database.sessions.list(userId: "u1", now: Date()).count
        #expect(u1Sessions == (item.expected == .signedIn ? 1 : 0) + (item.signedIn == "u1" ? 1 : 0))
        if let current, item.expected == .signedIn { #expect(try await sessions.resolve(token: current) == nil) }
        let failures = try await database.auditLog.search(AuditQuery(types: [AuditEventType.signInFailed.rawValue], limit: 10))
        #expect(failures.count == (item.expected.isRefusal ? 1 : 0))
        await database.close()
    }

    static let proven = VerifiedExternalIdentity(provider: "google", subject: "g-victim", email: "victim@gmail.test", emailVerified: true,
                                                 isPrivateRelay: false, name: nil)

    /// A token minted before links waited for the redeem said only `link: true` (its link already written):
    /// it never becomes a sign-in of the account it names.
    @Test func aTokenOfTheOldLinkShapeIsRefused() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let now = Date()
        try await database.users.create(User(id: "u1", email: "u1@example.test", displayName: nil, passwordHash: "hash", emailVerified: true,
                                             disabled: false, createdAt: now, updatedAt: now))
        let token = String(repeating: "t", count: 43)
        let payload = #"{"app":"app","challenge":"\#(PKCE.challenge(for: Self.verifier))","methods":["google"],"link":true}"#
        try await database.oneTimeTokens.create(OneTimeToken(hash: TokenHash(SHA256.hash(token)), purpose: .handoff, userId: "u1", createdAt: now,
                                                             expiresAt: now.addingTimeInterval(60), payload: payload))
        await #expect(throws: HandoffTokens.Failure.invalidToken) {
            try await HandoffTokens(store: database.oneTimeTokens).redeem(token: token, verifier: Self.verifier, appID: "app")
        }
        await database.close()
    }

    /// A hand-off token lives at most its lifetime.
    @Test func anExpiredTokenIsRefused() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let start = Date()
        try await database.users.create(User(id: "u1", email: "u1@example.test", displayName: nil, passwordHash: "hash", emailVerified: true,
                                             disabled: false, createdAt: start, updatedAt: start))
        let later = IdentityClock { start.addingTimeInterval(HandoffTokens.lifetime + 1) }
        let token = try await HandoffTokens(store: database.oneTimeTokens, clock: IdentityClock { start })
            .mint(userId: "u1", appID: "app", challenge: PKCE.challenge(for: Self.verifier), authMethods: ["google"], returnTo: nil, link: Self.proven)
        await #expect(throws: HandoffTokens.Failure.invalidToken) {
            try await HandoffTokens(store: database.oneTimeTokens, clock: later).redeem(token: token, verifier: Self.verifier, appID: "app")
        }
        await database.close()
    }
}

extension HandoffCompletionTests.Expected {
    var isRefusal: Bool { if case .refused = self { true } else { false } }
}

private extension Optional where Wrapped == String {
    /// A session for this user id, when there is one.
    func asyncSession(_ sessions: SessionService, _ context: ClientContext) async throws -> String? {
        guard let self else { return nil }
        return try await sessions.start(userId: self, methods: ["password"], context: context).token
    }
}
