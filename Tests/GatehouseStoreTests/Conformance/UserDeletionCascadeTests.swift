import Foundation
import GatehouseStore
import Testing

@Suite("User deletion cascade conformance")
struct UserDeletionCascadeTests {
    @Test(arguments: StoreBackends.all)
    func userDeletionRemovesGrantsButKeepsPendingRevocations(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.authorizationCodes.create(.fixture("code-u1"))
            try await db.authorizationCodes.create(.fixture("code-u2", userId: "u2"))
            try await db.refreshTokens.create(.fixture("rt-u1", family: "f1"))
            try await db.refreshTokens.create(.fixture("rt-u2", family: "f2", userId: "u2"))
            try await db.consents.save(Consent(userId: "u1", clientId: "c1", scopes: ["profile"], grantedAt: TestTime.at(1)))
            try await db.consents.save(Consent(userId: "u2", clientId: "c1", scopes: ["profile"], grantedAt: TestTime.at(1)))
            try await db.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "s1", userId: "u1",
                                                                    sealedRefreshToken: [1, 2, 3], createdAt: TestTime.at(1)))
            try await db.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "s2", userId: "u2",
                                                                    createdAt: TestTime.at(1)))
            // Account deletion queues the upstream revocation before deleting the user.
            try await db.pendingRevocations.enqueue(PendingRevocation(
                id: "rev-u1", provider: "apple", sealedToken: [1, 2, 3], tokenTypeHint: "refresh_token",
                nextAttemptAt: TestTime.at(1), createdAt: TestTime.at(1)))

            #expect(try await db.users.delete(id: "u1"))

            #expect(try await db.authorizationCodes.redeem(hash: testHash("code-u1"), now: TestTime.at(2)) == .invalid)
            #expect(try await db.refreshTokens.find(hash: testHash("rt-u1")) == nil)
            #expect(try await db.refreshTokens.isFamilyActive("f1", now: TestTime.at(2)) == false)
            #expect(try await db.refreshTokens.activeGrants(userId: "u1", now: TestTime.at(2)).isEmpty)
            #expect(try await db.consents.list(userId: "u1").isEmpty)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "s1") == nil)
            #expect(try await db.externalIdentities.list(userId: "u1").isEmpty)
            // The pending revocation outlives the account.
            #expect(try await db.pendingRevocations.due(now: TestTime.at(2), limit: 10).map(\.id) == ["rev-u1"])

            // The other user's records are untouched.
            #expect(try await db.refreshTokens.find(hash: testHash("rt-u2")) != nil)
            #expect(try await db.consents.list(userId: "u2").count == 1)
            #expect(try await db.externalIdentities.list(userId: "u2").count == 1)
            if case .redeemed = try await db.authorizationCodes.redeem(hash: testHash("code-u2"), now: TestTime.at(2)) {
            } else {
                Issue.record("u2's code must survive u1's deletion")
            }
            // The product user identity's key is free again: the row is gone, not hidden.
            try await db.users.create(.fixture("u1"))
            try await db.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "s1", userId: "u1",
                                                                    createdAt: TestTime.at(3)))
        }
    }
}
