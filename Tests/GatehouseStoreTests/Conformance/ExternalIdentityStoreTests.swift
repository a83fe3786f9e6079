import Foundation
import GatehouseStore
import Testing

@Suite("ExternalIdentityStore conformance")
struct ExternalIdentityStoreTests {
    static func identity(_ provider: String, _ subject: String, userId: String = "u1",
                         sealed: [UInt8]? = [0x00, 0xff, 0x10, 0x00, 0x7f]) -> ExternalIdentity {
        ExternalIdentity(provider: provider, subject: subject, userId: userId, email: "\(subject)@privaterelay.appleid.com",
                         emailVerified: true, isPrivateRelay: true, displayName: "Ada", sealedRefreshToken: sealed,
                         createdAt: TestTime.at(1), lastUsedAt: TestTime.at(2))
    }

    @Test(arguments: StoreBackends.all)
    func createFindListAndSealedBytesRoundTrip(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let apple = Self.identity("apple", "001234.abcd")
            let empty = Self.identity("google", "9", sealed: [])
            let bare = ExternalIdentity(provider: "github", subject: "42", userId: "u1", createdAt: TestTime.at(3))
            for item in [bare, apple, empty] { try await db.externalIdentities.create(item) }
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "001234.abcd") == apple)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "9")?.sealedRefreshToken == [])
            #expect(try await db.externalIdentities.find(provider: "github", subject: "42") == bare)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "42") == nil)
            #expect(try await db.externalIdentities.list(userId: "u1") == [apple, bare, empty])
        }
    }

    @Test(arguments: StoreBackends.all)
    func createFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            await expectStoreError(.notFound) { try await db.externalIdentities.create(Self.identity("apple", "s", userId: "ghost")) }
            try await db.externalIdentities.create(Self.identity("apple", "s"))
            // The same upstream account cannot be linked twice, not even to another user.
            await expectStoreError(.conflict) { try await db.externalIdentities.create(Self.identity("apple", "s", userId: "u2")) }
            // The same subject at another provider is a different identity.
            try await db.externalIdentities.create(Self.identity("google", "s", userId: "u2"))
        }
    }

    /// A new account and its first sign-in method are one transaction, so a lost race
    /// (the email or the identity taken meanwhile) leaves neither half behind.
    @Test(arguments: StoreBackends.all)
    func createUserWithIdentityIsAtomic(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User.fixture("u1")
            try await db.externalIdentities.createUser(user, withIdentity: Self.identity("apple", "s"))
            #expect(try await db.users.find(id: "u1") == user)
            #expect(try await db.externalIdentities.list(userId: "u1") == [Self.identity("apple", "s")])
            // The identity is taken: the second user is not created either.
            let second = User.fixture("u2")
            await expectStoreError(.conflict) {
                try await db.externalIdentities.createUser(second, withIdentity: Self.identity("apple", "s", userId: "u2"))
            }
            #expect(try await db.users.find(id: "u2") == nil)
            // The email is taken: the identity is not created.
            let sameEmail = User.fixture("u3", email: user.email)
            await expectStoreError(.conflict) {
                try await db.externalIdentities.createUser(sameEmail, withIdentity: Self.identity("google", "g", userId: "u3"))
            }
            #expect(try await db.externalIdentities.find(provider: "google", subject: "g") == nil)
            #expect(try await db.users.find(id: "u3") == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func updateAndDelete(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.externalIdentities.create(Self.identity("apple", "s"))
            var changed = Self.identity("apple", "s")
            changed.email = nil
            changed.emailVerified = false
            changed.isPrivateRelay = false
            changed.displayName = nil
            changed.sealedRefreshToken = nil
            changed.lastUsedAt = TestTime.at(50)
            try await db.externalIdentities.update(changed)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "s") == changed)
            changed.sealedRefreshToken = Array(0...255)
            try await db.externalIdentities.update(changed)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "s")?.sealedRefreshToken == Array(0...255))
            await expectStoreError(.notFound) { try await db.externalIdentities.update(Self.identity("apple", "other")) }

            #expect(try await db.externalIdentities.delete(provider: "apple", subject: "s"))
            #expect(try await db.externalIdentities.delete(provider: "apple", subject: "s") == false)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "s") == nil)
        }
    }
}
