import GatehouseCrypto
import Testing

/// HOTP and TOTP against the RFCs' own vectors, and base32 against RFC 4648's.
@Suite struct OneTimePasswordTests {
    /// RFC 4226 Appendix D: the secret "12345678901234567890", counters 0…9.
    static let hotpVectors = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
    static let rfcSecret = Array("12345678901234567890".utf8)

    @Test func hotpMatchesRFC4226() {
        for (counter, expected) in Self.hotpVectors.enumerated() {
            #expect(OneTimePassword.hotp(secret: Self.rfcSecret, counter: UInt64(counter)) == expected)
        }
    }

    /// RFC 6238 Appendix B, SHA-1 rows: the 8-digit values' last six digits are the 6-digit codes.
    @Test(arguments: [(Int64(59), "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                      (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")])
    func totpMatchesRFC6238(_ time: Int64, _ eightDigits: String) {
        #expect(OneTimePassword.totp(secret: Self.rfcSecret, step: OneTimePassword.step(unixTime: time)) == String(eightDigits.suffix(6)))
    }

    @Test func stepsAreThirtySecondsLong() {
        #expect(OneTimePassword.step(unixTime: 0) == 0)
        #expect(OneTimePassword.step(unixTime: 29) == 0)
        #expect(OneTimePassword.step(unixTime: 30) == 1)
        #expect(OneTimePassword.step(unixTime: 1_800_000_015) == 60_000_000)
    }

    @Test(arguments: [("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
                      ("foobar", "MZXW6YTBOI")])
    func base32MatchesRFC4648(_ text: String, _ encoded: String) {
        #expect(Base32.encode(Array(text.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Array(text.utf8))
        #expect(Base32.decode(encoded.lowercased()) == Array(text.utf8))
    }

    @Test func base32DecodesWhatPeopleTypeAndRefusesTheRest() {
        #expect(Base32.decode("MZXW 6YTB OI======") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)          // 1 is not in the alphabet
        #expect(Base32.decode("MZ=XW") == nil)          // data after padding
        #expect(Base32.decode("MY") == [0x66] && Base32.decode("MZ") == nil)   // leftover bits must be zero
        let secret = SecureRandom.bytes(20)
        #expect(Base32.decode(Base32.encode(secret)) == secret)
    }
}
