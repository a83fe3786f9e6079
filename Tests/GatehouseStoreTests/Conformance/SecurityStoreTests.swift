import Foundation
import GatehouseStore
import Testing

/// The store halves of the account-security rules, on every backend.
@Suite("Security store conformance")
struct SecurityStoreTests {
    static func identity(_ provider: String, _ subject: String, userId: String = "u1", client: String? = nil) -> ExternalIdentity {
        ExternalIdentity(provider: provider, subject: subject, userId: userId, sealedRefreshToken: [1, 2, 3], tokenClientID: client,
                         createdAt: TestTime.at(1))
    }

    /// Item 17: the last sign-in method survives any number of concurrent conditional unlinks.
    @Test(arguments: StoreBackends.all)
    func concurrentUnlinksNeverRemoveTheLastMethod(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            for round in 0..<5 {
                let user = "u\(round)"
                var fixture = User.fixture(user)
                fixture.passwordHash = nil
                try await db.users.create(fixture)
                let providers = ["apple", "google", "github", "okta"]
                for provider in providers { try await db.externalIdentities.create(Self.identity(provider, "s\(round)", userId: user)) }
                let outcomes = try await withThrowingTaskGroup(of: IdentityUnlinkOutcome.self) { group in
                    for provider in providers {
                        group.addTask { try await db.externalIdentities.deleteUnlessLastMethod(provider: provider, subject: "s\(round)", userId: user) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == .deleted }.count == 3 && outcomes.filter { $0 == .lastMethod }.count == 1)
                #expect(try await db.externalIdentities.list(userId: user).count == 1)
            }
        }
    }

    /// Unlink (with the provider token's client id): the password counts as a method; only the owner's identity goes.
    @Test(arguments: StoreBackends.all)
    func unlinkCountsThePasswordAndChecksTheOwner(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            var withPassword = User.fixture("u1")
            withPassword.passwordHash = "$argon2id$fake"
            try await db.users.create(withPassword)
            var without = User.fixture("u2")
            without.passwordHash = nil
            try await db.users.create(without)
            try await db.externalIdentities.create(Self.identity("apple", "a", userId: "u1", client: "com.example.app"))
            try await db.externalIdentities.create(Self.identity("apple", "b", userId: "u2"))
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "a")?.tokenClientID == "com.example.app")
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: "a", userId: "u2") == .notFound)
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: "b", userId: "u2") == .lastMethod)
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: "a", userId: "u1") == .deleted,
                    "the password remains")
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: "a", userId: "u1") == .notFound)
            try await db.externalIdentities.create(Self.identity("google", "c", userId: "u2"))
            #expect(try await db.externalIdentities.deleteAll(userId: "u2") == 2)
        }
    }

    /// Item 8: an event is applied once; an older one after a newer one for the same subject is superseded.
    @Test(arguments: StoreBackends.all)
    func providerEventsAreAppliedOnceAndInOrder(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            func event(_ id: String, subject: String = "s", at time: Double, received: Double = 100) -> ProviderEvent {
                ProviderEvent(provider: "apple", eventID: id, subject: subject, type: "email-enabled", eventTime: TestTime.at(time),
                              receivedAt: TestTime.at(received))
            }
            let store = db.providerEvents
            #expect(try await store.record(event("e1", at: 10)) == .apply)
            #expect(try await store.record(event("e1", at: 10)) == .duplicate)
            #expect(try await store.record(event("e2", at: 20)) == .apply)
            #expect(try await store.record(event("e0", at: 5)) == .superseded)
            #expect(try await store.record(event("e0", at: 5)) == .duplicate)
            #expect(try await store.record(event("x", subject: "other", at: 1)) == .apply, "ordering is per subject")
            // Concurrent copies of one event: exactly one applies.
            let outcomes = try await withThrowingTaskGroup(of: ProviderEventOutcome.self) { group in
                for _ in 0..<6 { group.addTask { try await store.record(event("race", at: 30)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .apply }.count == 1 && outcomes.filter { $0 == .duplicate }.count == 5)
            #expect(try await store.purge(receivedBefore: TestTime.at(101), limit: 3) == 3)
            #expect(try await store.purge(receivedBefore: TestTime.at(101), limit: 100) == 2, "five events in all")
            #expect(try await store.purge(receivedBefore: TestTime.at(101), limit: 100) == 0)
        }
    }

    /// Item 23: concurrent claims (several processes) never hand out the same revocation twice, and a
    /// claimed row is not due again until its claim lapses.
    @Test(arguments: StoreBackends.all)
    func concurrentClaimsNeverShareARevocation(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let store = db.pendingRevocations
            for index in 0..<30 {
                try await store.enqueue(PendingRevocation(id: "r\(index)", provider: "apple", sealedToken: [9], tokenTypeHint: "refresh_token",
                                                          clientID: index == 0 ? "com.example.app" : nil,
                                                          nextAttemptAt: TestTime.at(10), createdAt: TestTime.at(Double(index))))
            }
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<6 { group.addTask { try await store.claimDue(now: TestTime.at(20), claimFor: 300, limit: 7).map(\.id) } }
                return try await group.reduce(into: []) { $0.append(contentsOf: $1) }
            }
            #expect(claims.count == 30 && Set(claims).count == 30, "every row claimed exactly once")
            #expect(try await store.claimDue(now: TestTime.at(319), claimFor: 300, limit: 100).isEmpty, "claimed rows are not due")
            let again = try await store.claimDue(now: TestTime.at(320), claimFor: 300, limit: 1)
            #expect(again.map(\.id) == ["r0"] && again.first?.clientID == "com.example.app")
        }
    }
}
