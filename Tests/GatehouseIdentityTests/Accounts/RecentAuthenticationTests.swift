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
}
