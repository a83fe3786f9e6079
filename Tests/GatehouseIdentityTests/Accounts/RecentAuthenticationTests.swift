import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore
import Testing

/// What counts as "it is the owner, now" for a destructive action.
@Suite struct RecentAuthenticationTests {
    @Test func aPasswordIsTypedAndAProviderSignInMustBeFresh() async throws {
        let clock = SignInBackOffTests.Clock()
        let (accounts, database) = try await SignInBackOffTests.accounts(clock)
        let user = try #require(try await database.users.find(email: "ada@example.com"))
        let recent = RecentAuthentication(accounts: accounts, clock: clock.identity)
        let context = ClientContext(ip: "192.0.2.1", userAgent: nil)
        func session(_ methods: [String]) -> Session {
            let now = clock.identity.now()
            return Session(idHash: TokenHash(SHA256.hash("s")), userId: user.id, createdAt: now, idleExpiresAt: now + 3600,
                           absoluteExpiresAt: now + 7200, authMethods: methods)
        }
        let passwordSession = session(["pwd"]), googleSession = session(["google"])
        await #expect(throws: AccountError.reauthenticationRequired) { try await recent.verify(.signIn(passwordSession), user: user, context: context) }
        await #expect(throws: AccountError.invalidCredentials) { try await recent.verify(.password("nope"), user: user, context: context) }
        try await recent.verify(.password("correct horse battery"), user: user, context: context)
        try await recent.verify(.signIn(googleSession), user: user, context: context)
        #expect(recent.methods(user: user, session: googleSession) == .init(password: true, sessionIsRecent: true))
        clock.advance(301)
        await #expect(throws: AccountError.reauthenticationRequired) { try await recent.verify(.signIn(googleSession), user: user, context: context) }
        var providerOnly = user; providerOnly.passwordHash = nil
        #expect(recent.methods(user: providerOnly, session: googleSession) == .init(password: false, sessionIsRecent: false))
        await #expect(throws: AccountError.reauthenticationRequired) { try await recent.verify(.password(""), user: providerOnly, context: context) }
    }

    @Test(arguments: [(["swk", "user"], true), (["hwk", "user", "mfa"], true), (["google"], true), (["pwd"], false)])
    func aPasskeyOrProviderSignInIsFreshWithinThePolicysWindow(methods: [String], counts: Bool) async throws {
        let clock = SignInBackOffTests.Clock()
        let database = try await SigningKeyRingTests.database()
        var policy = SessionPolicy()
        policy.freshSignInWindow = 30
        let accounts = AccountService(database: database, hasher: PasswordHasher(parameters: Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)),
                                      audit: AuditTrail(store: database.auditLog),
                                      sessions: SessionService(database: database, policy: policy, clock: clock.identity), clock: clock.identity)
        let user = try await accounts.createByOperator(email: "pat@example.com", password: nil, displayName: nil, verified: true)
        let now = clock.identity.now()
        let session = Session(idHash: TokenHash(SHA256.hash("s")), userId: user.id, createdAt: now, idleExpiresAt: now + 3600,
                              absoluteExpiresAt: now + 7200, authMethods: methods)
        let recent = RecentAuthentication(accounts: accounts, clock: clock.identity)
        #expect(recent.window == 30)
        #expect(recent.methods(user: user, session: session) == .init(password: false, sessionIsRecent: counts))
        clock.advance(31)
        #expect(recent.methods(user: user, session: session).sessionIsRecent == false, "the window is the policy's")
    }
}
