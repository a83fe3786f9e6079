import GatehouseCrypto
import Testing

/// The key cache must never hand one JWK's metadata to another. Found by fuzz/jwk: the cache key
/// joined `alg`, `kid` and `use` with "|", so a JWK without `kid` and one with `"kid": ""` shared an
/// entry and the second came back with the first one's `keyID`.
@Suite struct VerificationKeyCacheTests {
    static let x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"   // RFC 8037 A.2

    @Test func aMissingKidAndAnEmptyKidAreDifferentKeys() throws {
        let cache = VerificationKeyCache(capacity: 8)
        let withoutKid = try cache.key(for: JWK(keyType: "OKP", curve: "Ed25519", x: Self.x))
        let emptyKid = try cache.key(for: JWK(keyType: "OKP", curve: "Ed25519", x: Self.x, keyID: ""))
        #expect(withoutKid.keyID == nil)
        #expect(emptyKid.keyID == "")
        #expect(cache.count == 2)
    }

    @Test func separatorsInsideMembersDoNotCollide() throws {
        let cache = VerificationKeyCache(capacity: 8)
        let a = try cache.key(for: JWK(keyType: "OKP", curve: "Ed25519", x: Self.x, keyID: "k|sig"))
        let b = try cache.key(for: JWK(keyType: "OKP", curve: "Ed25519", x: Self.x, keyID: "k", use: "sig"))
        #expect(a.keyID == "k|sig")
        #expect(b.keyID == "k")
        #expect(cache.count == 2)
    }
}
