import Foundation
import Testing
@testable import GatehouseCrypto

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthUpTo64() {
        for length in 0...64 {
            let bytes = SecureRandom.bytes(length)
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
    }

    @Test func matchesFoundationBase64() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x00, 0x3e, 0x3f]
        let expected = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(Base64URL.encode(bytes) == expected)
        #expect(Base64URL.encode(bytes) == "-__-AD4_")
    }

    @Test func rejectsPaddingInvalidCharactersAndBadLengths() {
        #expect(Base64URL.decode("YQ==") == nil)      // padding
        #expect(Base64URL.decode("YQ") == [0x61])
        #expect(Base64URL.decode("a+b/") == nil)      // standard alphabet
        #expect(Base64URL.decode("ab cd") == nil)     // whitespace
        #expect(Base64URL.decode("abcde") == nil)     // length ≡ 1 (mod 4)
        #expect(Base64URL.decode("YR") == nil)        // non-zero trailing bits: not canonical
        #expect(Base64URL.decode("") == [])
    }
}

@Suite struct HashAndMACTests {
    @Test func sha256KnownAnswers() {
        #expect(Hex.encode(SHA256.hash("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash(Array("abc".utf8)) == SHA256.hash("abc"))
    }

    @Test(arguments: RFC4231.cases.map(\.name))
    func hmacSHA256RFC4231(name: String) {
        let vector = RFC4231.cases.first { $0.name == name }!
        let mac = HMACSHA256(key: vector.key)
        #expect(Hex.encode(mac.authenticationCode(for: vector.data)) == vector.mac)
        // The reused context must give the same answer twice (re-init keeps the key).
        #expect(Hex.encode(mac.authenticationCode(for: vector.data)) == vector.mac)
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: vector.data, key: vector.key)) == vector.mac)
        #expect(mac.isValid(Hex.decode(vector.mac)!, for: vector.data))
        var wrong = Hex.decode(vector.mac)!
        wrong[31] ^= 1
        #expect(!mac.isValid(wrong, for: vector.data))
    }

    @Test func hmacIsSafeUnderConcurrentUse() async {
        let mac = HMACSHA256(key: Array("key".utf8))
        let expected = mac.authenticationCode(for: "message")
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (0..<200).allSatisfy { _ in mac.authenticationCode(for: "message") == expected } } }
            for await ok in group { #expect(ok) }
        }
    }

    @Test func constantTimeEqualsIsLengthSafe() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals("secret", "secret"))
        #expect(!ConstantTime.equals("secret", "secreT"))
    }

    @Test func randomTokensAreLongAndDistinct() {
        let tokens = (0..<100).map { _ in SecureRandom.token() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 43 && Base64URL.decode($0)?.count == 32 })
        #expect(SecureRandom.token(byteCount: 16).count == 22)
    }
}

@Suite struct AES256GCMTests {
    @Test func sealOpenRoundTrip() throws {
        let key = SymmetricKey.generate()
        let plaintext = Array("attack at dawn".utf8)
        let sealed = try AES256GCM.seal(plaintext, key: key, associatedData: Array("kid-1".utf8))
        #expect(sealed.count == 12 + plaintext.count + 16)
        #expect(try AES256GCM.open(sealed, key: key, associatedData: Array("kid-1".utf8)) == plaintext)
        // Fresh nonce each time.
        #expect(try AES256GCM.seal(plaintext, key: key) != AES256GCM.seal(plaintext, key: key))
        #expect(try AES256GCM.open(AES256GCM.seal([], key: key), key: key) == [])
    }

    @Test func tamperingWrongAADAndWrongKeyFail() throws {
        let key = SymmetricKey.generate()
        let sealed = try AES256GCM.seal(Array("secret".utf8), key: key, associatedData: [1])
        for index in [0, 12, sealed.count - 1] {   // nonce, ciphertext, tag
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(tampered, key: key, associatedData: [1]) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(sealed, key: key, associatedData: [2]) }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(sealed, key: key) }
        #expect(throws: CryptoError.authenticationFailed) { try AES256GCM.open(sealed, key: .generate(), associatedData: [1]) }
        #expect(throws: CryptoError.malformedCiphertext) { try AES256GCM.open([1, 2, 3], key: key) }
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) { try SymmetricKey(bytes: [UInt8](repeating: 0, count: 16)) }
    }

    /// NIST CAVP gcmEncryptExtIV256, PTlen=128, AADlen=0, Count=0.
    @Test func nistKnownAnswer() throws {
        let key = try SymmetricKey(bytes: Hex.decode("31bdadd96698c204aa9ce1448ea94ae1fb4a9a0b3c9d773b51bb1822666b8f22")!)
        let nonce = Hex.decode("0d18e06c7c725ac9e362e1ce")!
        let sealed = try AES256GCM.seal(Hex.decode("2db5168e932556f8089a0622981d017d")!, key: key, nonce: nonce, associatedData: [])
        #expect(Hex.encode(sealed.dropFirst(12)) == "fa4362189661d163fcd6a56d8bf0405a" + "d636ac1bbedd5cc3ee727dc2ab4a9489")
    }
}

@Suite struct PKCETests {
    /// RFC 7636 Appendix B.
    @Test func rfc7636AppendixB() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"))
    }

    @Test func generatedVerifiersAreValid() {
        for length in [43, 64, 128] {
            let verifier = PKCE.generateVerifier(length: length)
            #expect(verifier.count == length)
            #expect(PKCE.isValidVerifier(verifier))
            #expect(PKCE.verify(verifier: verifier, challenge: PKCE.challenge(for: verifier)))
        }
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
        // A too-short verifier fails even if its challenge matches.
        #expect(!PKCE.verify(verifier: "short", challenge: PKCE.challenge(for: "short")))
    }
}
