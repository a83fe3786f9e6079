import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Synchronization
import Testing

final class ManualClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var identity: IdentityClock { IdentityClock { [self] in self.now } }
}

@Suite struct SigningKeyRingTests {
    static func database() async throws -> any GatehouseDatabase {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-keys-\(UUID().uuidString).sqlite").path
        let database = try await SQLiteDatabase.open(url: "sqlite://" + path)
        _ = try await database.migrate()
        return database
    }

    let policy = SigningKeyRing.Policy(publishLead: 600, retiredPublishDuration: 86_400, refreshInterval: 30)

    @Test func firstStartCreatesASigningKeyStoredEncrypted() async throws {
        let database = try await Self.database()
        let kek = KeyEncryptionKey.generate()
        let ring = SigningKeyRing(store: database.signingKeys, kek: kek, policy: policy)
        try await ring.ensureSigningKey()
        try await ring.ensureSigningKey()
        let stored = try await database.signingKeys.list()
        #expect(stored.count == 1, "a second start does not add keys")
        let key = try await ring.signingKey()
        #expect(stored[0].kid == key.keyID)
        #expect(!String(decoding: stored[0].encryptedPrivateKey, as: UTF8.self).contains("\"d\""), "the private key is sealed")
        #expect(try await ring.publicJWKS().keys.map(\.keyID) == [key.keyID])
        #expect(try await ring.publicJWKS().keys.allSatisfy { !$0.isPrivate })
    }

    @Test func rotationPublishesBeforeSigningAndKeepsTheOldKeyPublished() async throws {
        let database = try await Self.database()
        let clock = ManualClock()
        let ring = SigningKeyRing(store: database.signingKeys, kek: .generate(), clock: clock.identity, policy: policy)
        try await ring.ensureSigningKey()
        let old = try await ring.signingKey().keyID
        let (new, retired) = try await ring.rotate()
        #expect(retired == [old])
        #expect(try await ring.signingKey().keyID == old, "the new key does not sign yet")
        #expect(Set(try await ring.publicJWKS().keys.compactMap(\.keyID)) == [old, new], "but it is published")
        clock.advance(601)
        _ = try await ring.keySet(forceReload: true)
        #expect(try await ring.signingKey().keyID == new)
        #expect(Set(try await ring.publicJWKS().keys.compactMap(\.keyID)) == [old, new], "the old key stays published")
        clock.advance(86_400)
        _ = try await ring.keySet(forceReload: true)
        #expect(try await ring.publicJWKS().keys.compactMap(\.keyID) == [new], "and leaves once its tokens have expired")
    }

    @Test func anotherProcessPicksUpARotationWithoutRestart() async throws {
        let database = try await Self.database()
        let clock = ManualClock()
        let kek = KeyEncryptionKey.generate()
        let first = SigningKeyRing(store: database.signingKeys, kek: kek, clock: clock.identity, policy: policy)
        let second = SigningKeyRing(store: database.signingKeys, kek: kek, clock: clock.identity, policy: policy)
        try await first.ensureSigningKey()
        #expect(try await second.publicJWKS().keys.count == 1)
        let (new, _) = try await first.rotate()
        clock.advance(31)   // past the refresh interval
        #expect(try await second.publicJWKS().keys.contains { $0.keyID == new })
    }

    @Test func aDifferentSecretCannotReadTheKeys() async throws {
        let database = try await Self.database()
        try await SigningKeyRing(store: database.signingKeys, kek: .generate(), policy: policy).ensureSigningKey()
        let other = SigningKeyRing(store: database.signingKeys, kek: .generate(), policy: policy)
        await #expect(throws: SigningKeyRing.Failure.self) { try await other.signingKey() }
    }

    @Test func tokensSignedByTheRingVerifyAgainstItsJWKS() async throws {
        let database = try await Self.database()
        let ring = SigningKeyRing(store: database.signingKeys, kek: .generate(), policy: policy)
        try await ring.ensureSigningKey()
        let now = Date()
        let token = try JWTSigner.sign(["iss": .string("https://id.example"), "sub": .string("u1"),
                                        "exp": .integer(Int64(now.timeIntervalSince1970) + 60)], with: try await ring.signingKey())
        let verifier = JWTVerifier(allowedAlgorithms: [.es256], rules: ClaimRules(issuers: ["https://id.example"], audiences: nil))
        let verified = try verifier.verify(token, keys: VerificationKeySet(jwks: try await ring.publicJWKS()), now: now)
        #expect(try verified.claims.string("sub") == "u1")
    }
}
