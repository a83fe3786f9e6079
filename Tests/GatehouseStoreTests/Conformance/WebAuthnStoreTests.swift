import Foundation
import GatehouseStore
import Testing

@Suite("WebAuthnCredentialStore and WebAuthnChallengeStore conformance")
struct WebAuthnStoreTests {
    static func credential(_ id: [UInt8], user: String = "u1", at seconds: Double = 1, signCount: UInt32 = 5) -> WebAuthnCredential {
        WebAuthnCredential(credentialID: id, userID: user, publicKey: [0xa5, 0x01, 0x02, 0x00, 0xff], algorithm: -7, signCount: signCount,
                           backupEligible: true, backedUp: false, userVerified: true, aaguid: [UInt8](repeating: 0, count: 16),
                           attestation: "none", transports: ["internal", "hybrid"], name: "Laptop \u{00e9}", createdAt: TestTime.at(seconds))
    }

    static func challenge(_ seed: String, ceremony: WebAuthnChallenge.Ceremony = .authentication, user: String? = nil,
                          expiresIn: Double = 300) -> WebAuthnChallenge {
        WebAuthnChallenge(challengeHash: testHash(seed), ceremony: ceremony, userID: user, flowBinding: testHash("flow-" + seed),
                          requireUserVerification: true, createdAt: TestTime.at(0), expiresAt: TestTime.at(expiresIn))
    }

    @Test(arguments: StoreBackends.all)
    func credentialsRoundTripAndListInCreationOrder(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let second = Self.credential([2, 0, 2], at: 20), first = Self.credential([1, 0, 1], at: 10, signCount: 0)
            try await db.webAuthnCredentials.create(second)
            try await db.webAuthnCredentials.create(first)
            #expect(try await db.webAuthnCredentials.credential(id: [2, 0, 2]) == second)
            #expect(try await db.webAuthnCredentials.credential(id: [9]) == nil)
            #expect(try await db.webAuthnCredentials.credentials(userID: "u1") == [first, second])
            #expect(try await db.webAuthnCredentials.credentials(userID: "nobody").isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func credentialIDsAreUniqueAcrossUsersAndOwnersMustExist(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            try await db.webAuthnCredentials.create(Self.credential([7]))
            await expectStoreError(.conflict) { try await db.webAuthnCredentials.create(Self.credential([7], user: "u2")) }
            await expectStoreError(.notFound) { try await db.webAuthnCredentials.create(Self.credential([8], user: "ghost")) }
            #expect(try await db.webAuthnCredentials.credentials(userID: "u2").isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func recordUseMovesTheCounterOnlyFromTheValueRead(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.webAuthnCredentials.create(Self.credential([1], signCount: 5))
            #expect(try await db.webAuthnCredentials.recordUse(credentialID: [1], previousSignCount: 4, signCount: 9, backedUp: true,
                                                               at: TestTime.at(50)) == false)
            #expect(try await db.webAuthnCredentials.recordUse(credentialID: [1], previousSignCount: 5, signCount: 6, backedUp: true,
                                                               at: TestTime.at(60)))
            let used = try #require(try await db.webAuthnCredentials.credential(id: [1]))
            #expect(used.signCount == 6 && used.backedUp && used.lastUsedAt == TestTime.at(60))
            // Racing assertions that read the same counter: one moves it.
            let store = db.webAuthnCredentials
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for step in 0..<10 {
                    group.addTask { try await store.recordUse(credentialID: [1], previousSignCount: 6, signCount: UInt32(7 + step), backedUp: true,
                                                              at: TestTime.at(70)) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func renameAndDeleteOnlyTheOwnersCredential(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            try await db.webAuthnCredentials.create(Self.credential([1]))
            #expect(try await db.webAuthnCredentials.rename(credentialID: [1], userID: "u2", name: "mine now") == false)
            #expect(try await db.webAuthnCredentials.rename(credentialID: [1], userID: "u1", name: "Phone"))
            #expect(try await db.webAuthnCredentials.credential(id: [1])?.name == "Phone")
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: "u2") == .notFound)
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: "u1") == .deleted)
            #expect(try await db.webAuthnCredentials.credential(id: [1]) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func deleteAllRemovesOnlyThatUsersCredentials(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            try await db.webAuthnCredentials.create(Self.credential([1]))
            try await db.webAuthnCredentials.create(Self.credential([2], at: 2))
            try await db.webAuthnCredentials.create(Self.credential([3], user: "u2"))
            #expect(try await db.webAuthnCredentials.deleteAll(userID: "u1") == 2)
            #expect(try await db.webAuthnCredentials.credentials(userID: "u1").isEmpty)
            #expect(try await db.webAuthnCredentials.credentials(userID: "u2").count == 1)
            #expect(try await db.webAuthnCredentials.deleteAll(userID: "u1") == 0)
        }
    }

    @Test(arguments: StoreBackends.all)
    func theLastWayInIsNeverDeleted(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            // A passkey-only account (no password): two passkeys, removed concurrently.
            var user = User.fixture("u1")
            user.passwordHash = nil
            try await db.users.create(user)
            try await db.webAuthnCredentials.create(Self.credential([1]))
            try await db.webAuthnCredentials.create(Self.credential([2], at: 2))
            let store = db.webAuthnCredentials
            let outcomes = try await withThrowingTaskGroup(of: CredentialRemoval.self) { group in
                for id in [[UInt8]([1]), [2]] { group.addTask { try await store.deleteUnlessLast(credentialID: id, userID: "u1") } }
                return try await group.reduce(into: [CredentialRemoval]()) { $0.append($1) }
            }
            #expect(outcomes.sorted { "\($0)" < "\($1)" } == [.deleted, .lastMethod])
            #expect(try await db.webAuthnCredentials.credentials(userID: "u1").count == 1)
            // A linked identity is another way in; the passkey may then go, and the identity may go while a passkey remains.
            try await db.externalIdentities.create(ExternalIdentity(provider: "github", subject: "42", userId: "u1", createdAt: TestTime.at(3)))
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "github", subject: "42", userId: "u1") == .deleted)
            try await db.externalIdentities.create(ExternalIdentity(provider: "github", subject: "42", userId: "u1", createdAt: TestTime.at(3)))
            let remaining = try #require(try await db.webAuthnCredentials.credentials(userID: "u1").first)
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: remaining.credentialID, userID: "u1") == .deleted)
            #expect(try await db.externalIdentities.deleteUnlessLastMethod(provider: "github", subject: "42", userId: "u1") == .lastMethod)
        }
    }

    @Test(arguments: StoreBackends.all)
    func oneUserHandlePerUserWhoeverProposesFirst(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let store = db.webAuthnCredentials
            let handles = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for seed in 0..<8 { group.addTask { try await store.userHandle(userID: "u1", proposed: [UInt8](repeating: UInt8(seed), count: 32)) } }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            #expect(handles.count == 1)
            let handle = try #require(handles.first)
            #expect(try await store.userID(handle: handle) == "u1")
            #expect(try await store.userID(handle: [0xee]) == nil)
            await expectStoreError(.notFound) { _ = try await store.userHandle(userID: "ghost", proposed: [1]) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func deletingTheUserDeletesCredentialsAndHandle(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.webAuthnCredentials.create(Self.credential([1]))
            let handle = try await db.webAuthnCredentials.userHandle(userID: "u1", proposed: [5, 5])
            #expect(try await db.users.delete(id: "u1"))
            #expect(try await db.webAuthnCredentials.credential(id: [1]) == nil)
            #expect(try await db.webAuthnCredentials.userID(handle: handle) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func challengesAreSingleUseAndExpire(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let registration = Self.challenge("c1", ceremony: .registration, user: "u1")
            try await db.webAuthnChallenges.create(registration)
            try await db.webAuthnChallenges.create(Self.challenge("c2", expiresIn: 10))
            await expectStoreError(.conflict) { try await db.webAuthnChallenges.create(Self.challenge("c1")) }
            #expect(try await db.webAuthnChallenges.consume(challengeHash: testHash("c1"), now: TestTime.at(5)) == registration)
            #expect(try await db.webAuthnChallenges.consume(challengeHash: testHash("c1"), now: TestTime.at(5)) == nil)
            #expect(try await db.webAuthnChallenges.consume(challengeHash: testHash("c2"), now: TestTime.at(10)) == nil)
            #expect(try await db.webAuthnChallenges.purgeExpired(now: TestTime.at(10), limit: 10) == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentAnswersToOneChallengeExactlyOneWins(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.webAuthnChallenges.create(Self.challenge("race"))
            let store = db.webAuthnChallenges
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await store.consume(challengeHash: testHash("race"), now: TestTime.at(1)) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }
}
