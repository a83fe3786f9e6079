import Foundation
import GatehouseStore
import Testing

@Suite("SigningKeyStore conformance")
struct SigningKeyStoreTests {
    static func key(_ kid: String, created: Double = 0) -> SigningKey {
        SigningKey(kid: kid, algorithm: "ES256", publicJWK: #"{"kty":"EC","crv":"P-256","kid":"\#(kid)"}"#,
                   encryptedPrivateKey: [1, 2, 3, 0, 255], createdAt: TestTime.at(created),
                   activatesAt: TestTime.at(created + 3600))
    }

    @Test(arguments: StoreBackends.all)
    func insertFindAndList(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let keys = db.signingKeys
            try await keys.insert(Self.key("k2", created: 10))
            try await keys.insert(Self.key("k1", created: 0))
            #expect(try await keys.list().map(\.kid) == ["k1", "k2"])
            #expect(try await keys.find(kid: "k2") == Self.key("k2", created: 10))
            #expect(try await keys.find(kid: "nope") == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func duplicateKidConflicts(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.signingKeys.insert(Self.key("k1"))
            await expectStoreError(.conflict) { try await db.signingKeys.insert(Self.key("k1")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func emptyPrivateKeyRoundTrips(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            var key = Self.key("empty")
            key.encryptedPrivateKey = []
            try await db.signingKeys.insert(key)
            #expect(try await db.signingKeys.find(kid: "empty")?.encryptedPrivateKey == [])
        }
    }

    @Test(arguments: StoreBackends.all)
    func retireAndDeleteExpired(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let keys = db.signingKeys
            try await keys.insert(Self.key("old"))
            try await keys.insert(Self.key("new", created: 5))
            try await keys.retire(kid: "old", at: TestTime.at(100), publishUntil: TestTime.at(200))
            let old = try #require(try await keys.find(kid: "old"))
            #expect(old.retiredAt == TestTime.at(100))
            #expect(old.publishUntil == TestTime.at(200))

            #expect(try await keys.deleteExpired(now: TestTime.at(200)) == 0)  // publishUntil is inclusive
            #expect(try await keys.deleteExpired(now: TestTime.at(200.001)) == 1)
            #expect(try await keys.list().map(\.kid) == ["new"])
        }
    }

    @Test(arguments: StoreBackends.all)
    func retireUnknownKidIsNotFound(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            await expectStoreError(.notFound) {
                try await db.signingKeys.retire(kid: "ghost", at: TestTime.at(0), publishUntil: TestTime.at(1))
            }
        }
    }
}
