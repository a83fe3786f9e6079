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
    /// For the tests that are not about RSA: EC keys generate in microseconds, RSA keys in ~0.2 s.
    let ecOnly = SigningKeyRing.Policy(publishLead: 600, retiredPublishDuration: 86_400, refreshInterval: 30, algorithms: [.es256])

    @Test func firstStartCreatesAnES256AndAnRS256KeyStoredEncrypted() async throws {
        let database = try await Self.database()
        let kek = KeyEncryptionKey.generate()
        let ring = SigningKeyRing(store: database.signingKeys, kek: kek, policy: policy)
        try await ring.ensureSigningKey()
        try await ring.ensureSigningKey()
        let stored = try await database.signingKeys.list()
        #expect(stored.count == 2, "one key per algorithm; a second start does not add keys")
        let ec = try await ring.signingKey(), rsa = try await ring.signingKey(.rs256)
        #expect(ec.algorithm == .es256 && rsa.algorithm == .rs256)
        #expect(Set(stored.map(\.kid)) == [ec.keyID, rsa.keyID])
        #expect(Set(stored.map(\.algorithm)) == ["ES256", "RS256"])
        for record in stored {
            let sealed = String(decoding: record.encryptedPrivateKey, as: UTF8.self)
            #expect(!sealed.contains("\"d\"") && !sealed.contains("\"p\""), "the private key is sealed")
        }
        let jwks = try await ring.publicJWKS().keys
        #expect(Set(jwks.compactMap(\.keyID)) == [ec.keyID, rsa.keyID])
        #expect(jwks.allSatisfy { !$0.isPrivate && $0.p == nil && $0.qi == nil }, "no private RSA member is published")
        let published = try #require(jwks.first { $0.keyType == "RSA" })
        #expect(published.algorithm == "RS256" && published.use == "sig")
        #expect((Base64URL.decode(published.modulus ?? "")?.count ?? 0) >= 256, "2048 bits or more")
    }

    @Test func aStoreWithOnlyAnECKeyGetsAnRSAKeyAtTheNextStart() async throws {
        let database = try await Self.database()
        let kek = KeyEncryptionKey.generate()
        let old = SigningKeyRing(store: database.signingKeys, kek: kek,
                                 policy: SigningKeyRing.Policy(publishLead: 600, retiredPublishDuration: 86_400, algorithms: [.es256]))
        try await old.ensureSigningKey()
        let ec = try await old.signingKey().keyID
        let ring = SigningKeyRing(store: database.signingKeys, kek: kek, policy: policy)
        try await ring.ensureSigningKey()
        #expect(try await ring.signingKey().keyID == ec, "the EC key keeps signing")
        #expect(try await ring.signingKey(.rs256).algorithm == .rs256)
    }

    @Test func rotationPublishesBeforeSigningAndKeepsTheOldKeysPublished() async throws {
        let database = try await Self.database()
        let clock = ManualClock()
        let ring = SigningKeyRing(store: database.signingKeys, kek: .generate(), clock: clock.identity, policy: policy)
        try await ring.ensureSigningKey()
        let oldEC = try await ring.signingKey().keyID, oldRSA = try await ring.signingKey(.rs256).keyID
        let (new, retired) = try await ring.rotate()
        #expect(Set(retired) == [oldEC, oldRSA], "every algorithm rotates")
        #expect(new.count == 2)
        #expect(try await ring.signingKey().keyID == oldEC, "the new keys do not sign yet")
        #expect(try await ring.signingKey(.rs256).keyID == oldRSA)
        #expect(Set(try await ring.publicJWKS().keys.compactMap(\.keyID)) == Set([oldEC, oldRSA] + new), "but they are published")
        clock.advance(601)
        _ = try await ring.keySet(forceReload: true)
        #expect(Set([try await ring.signingKey().keyID, try await ring.signingKey(.rs256).keyID]) == Set(new))
        #expect(try await ring.signingKey().algorithm == .es256)
        #expect(try await ring.signingKey(.rs256).algorithm == .rs256)
        #expect(Set(try await ring.publicJWKS().keys.compactMap(\.keyID)) == Set([oldEC, oldRSA] + new), "the old keys stay published")
        clock.advance(86_400)
        _ = try await ring.keySet(forceReload: true)
        #expect(Set(try await ring.publicJWKS().keys.compactMap(\.keyID)) == Set(new), "and leave once their tokens have expired")
    }

    @Test func anotherProcessPicksUpARotationWithoutRestart() async throws {
        let database = try await Self.database()
        let clock = ManualClock()
        let kek = KeyEncryptionKey.generate()
        let first = SigningKeyRing(store: database.signingKeys, kek: kek, clock: clock.identity, policy: ecOnly)
        let second = SigningKeyRing(store: database.signingKeys, kek: kek, clock: clock.identity, policy: ecOnly)
        try await first.ensureSigningKey()
        #expect(try await second.publicJWKS().keys.count == 1)
        let (new, _) = try await first.rotate()
        clock.advance(31)   // past the refresh interval
        #expect(Set(new).isSubset(of: Set(try await second.publicJWKS().keys.compactMap(\.keyID))))
    }

    @Test func aDifferentSecretCannotReadTheKeys() async throws {
        let database = try await Self.database()
        try await SigningKeyRing(store: database.signingKeys, kek: .generate(), policy: ecOnly).ensureSigningKey()
        let other = SigningKeyRing(store: database.signingKeys, kek: .generate(), policy: ecOnly)
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
        let rsaToken = try JWTSigner.sign(["iss": .string("https://id.example"), "sub": .string("u2"),
                                           "exp": .integer(Int64(now.timeIntervalSince1970) + 60)], with: try await ring.signingKey(.rs256))
        let rsaVerifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: ["https://id.example"], audiences: nil))
        let rsaVerified = try rsaVerifier.verify(rsaToken, keys: VerificationKeySet(jwks: try await ring.publicJWKS()), now: now)
        #expect(rsaVerified.algorithm == .rs256)
        #expect(try rsaVerified.claims.string("sub") == "u2")
        let published = VerificationKeySet(jwks: try await ring.publicJWKS())
        #expect(throws: JOSEError.self, "an RS256 token does not pass an ES256-only verifier (access tokens)") {
            try verifier.verify(rsaToken, keys: published, now: now)
        }
    }
}
