import GatehouseCrypto
import Testing

/// HMAC keys are loaded through an OSSL_PARAM that points at C strings: a regression test for the
/// parameter name that was a temporary (found as a crash under 1,000 concurrent sign-ups).
@Suite struct HMACConstructionTests {
    @Test func manyKeysLoadedAtOnceAllGiveTheRFC4231MAC() async {
        // RFC 4231 test case 2.
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        let results = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<2_000 {
                        // Other allocations between constructions, so freed memory is reused.
                        let noise = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: round % 64)
                        if Hex.encode(HMACSHA256(key: key).authenticationCode(for: data)) != expected || noise.count > 64 {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(results == 0)
    }
}
