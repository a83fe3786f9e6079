import Foundation
import Testing
@testable import GatehouseCrypto

@Suite struct SigningKeyTests {
    @Test(arguments: [JWSAlgorithm.es256, .edDSA])
    func exportImportRoundTrip(algorithm: JWSAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        #expect(key.keyID == (try key.publicJWK.thumbprint()))
        #expect(key.publicJWK.privateKey == nil && key.publicJWK.use == "sig" && key.publicJWK.algorithm == algorithm.rawValue)
        let exported = key.privateJWKData()
        let imported = try SigningKey(privateJWKData: exported)
        #expect(imported.keyID == key.keyID && imported.algorithm == algorithm)
        // A signature by the imported key verifies under the original public key.
        let message = Array("hello".utf8)
        try key.verificationKey.verify(signature: try imported.sign(message), for: message, algorithm: algorithm)
        #expect(throws: JOSEError.unsupportedAlgorithm("PS256")) { try SigningKey.generate(.ps256) }
    }

    @Test func importRejectsPublicOnlyAndMismatchedKeys() throws {
        let key = try SigningKey.generate(.es256)
        #expect(throws: JOSEError.notAPrivateKey) { try SigningKey(privateJWK: key.publicJWK) }
        var mismatched = try JWK(json: key.privateJWKData())
        mismatched.x = (try SigningKey.generate(.es256)).publicJWK.x
        mismatched.y = (try SigningKey.generate(.es256)).publicJWK.y
        #expect(throws: JOSEError.self) { try SigningKey(privateJWK: mismatched) }
        let ed = try SigningKey.generate(.edDSA)
        var wrongX = try JWK(json: ed.privateJWKData())
        wrongX.x = (try SigningKey.generate(.edDSA)).publicJWK.x
        #expect(throws: JOSEError.invalidKey("Ed25519 x does not match d")) { try SigningKey(privateJWK: wrongX) }
    }

    @Test(arguments: [JWSAlgorithm.es256, .edDSA])
    func pemImport(algorithm: JWSAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let pem = try key.evp.privateKeyPEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let imported = try SigningKey(pem: pem)
        #expect(imported.keyID == key.keyID && imported.algorithm == algorithm)
        #expect(throws: JOSEError.invalidKey("unreadable PEM private key")) { try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
    }

    /// Sign in with Apple client secret: ES256 with the .p8 key and Apple's key id in `kid`.
    @Test func clientSecretWithProviderKeyID() throws {
        let p8 = try SigningKey(pem: try SigningKey.generate(.es256).evp.privateKeyPEM())
        let token = try JWTSigner.sign(["iss": .string("TEAMID1234"), "sub": .string("com.example.web"),
                                        "aud": .string("https://appleid.apple.com"), "iat": .integer(1_700_000_000),
                                        "exp": .integer(1_700_003_600)], with: p8, keyID: "ABC123DEFG")
        let jws = try CompactJWS(token)
        #expect(jws.header.keyID == "ABC123DEFG" && jws.header.algorithm == "ES256")
        try jws.verify(with: p8.verificationKey, allowedAlgorithms: [.es256])
    }

    @Test func rfc7515A3PrivateKeyImportsWithMatchingPublicKey() throws {
        let key = try SigningKey(privateJWK: JWK(keyType: "EC", curve: "P-256", x: RFC7515.ecX, y: RFC7515.ecY, privateKey: RFC7515.ecD))
        let message = Array("\(RFC7515.es256Header).\(RFC7515.payload)".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        // ECDSA is randomised, so check by verifying with the RFC's public key instead of comparing bytes.
        try JWSTests.ecKey.verify(signature: signature, for: message, algorithm: .es256)
    }

    @Test func keyEncryptionKeySealsBoundToKid() throws {
        let kek = KeyEncryptionKey.generate()
        let key = try SigningKey.generate()
        let sealed = try kek.seal(key.privateJWKData(), keyID: key.keyID)
        #expect(try SigningKey(privateJWKData: kek.open(sealed, keyID: key.keyID)).keyID == key.keyID)
        #expect(throws: CryptoError.authenticationFailed) { try kek.open(sealed, keyID: "another-kid") }
        #expect(throws: CryptoError.authenticationFailed) { try KeyEncryptionKey.generate().open(sealed, keyID: key.keyID) }
    }

    @Test func keyEncryptionKeyDecodesBase64AndHex() throws {
        let bytes = SecureRandom.bytes(32)
        let fromHex = try KeyEncryptionKey(encoded: Hex.encode(bytes) + "\n")
        let fromBase64 = try KeyEncryptionKey(encoded: Data(bytes).base64EncodedString())
        let fromBase64URL = try KeyEncryptionKey(encoded: Base64URL.encode(bytes))
        let sealed = try fromHex.seal([1, 2, 3], keyID: "k")
        #expect(try fromBase64.open(sealed, keyID: "k") == [1, 2, 3])
        #expect(try fromBase64URL.open(sealed, keyID: "k") == [1, 2, 3])
        #expect(try KeyEncryptionKey(encoded: fromHex.base64).open(sealed, keyID: "k") == [1, 2, 3])
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: 16)) { try KeyEncryptionKey(encoded: Data(SecureRandom.bytes(16)).base64EncodedString()) }
        #expect(throws: CryptoError.invalidKeyEncoding) { try KeyEncryptionKey(encoded: "not a key!") }
    }
}

@Suite struct SigningKeySetTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let day: TimeInterval = 86_400

    @Test func rotationSchedule() throws {
        let old = ScheduledSigningKey(key: try .generate(), createdAt: Self.t0, activatesAt: Self.t0,
                                      retiredAt: Self.t0 + 10 * Self.day, publishUntil: Self.t0 + 11 * Self.day)
        let new = ScheduledSigningKey(key: try .generate(), createdAt: Self.t0 + 9 * Self.day, activatesAt: Self.t0 + 10 * Self.day)
        let set = SigningKeySet([old, new])

        // Day 9.5: the new key is published but does not sign yet.
        let beforeSwitch = Self.t0 + 9.5 * Self.day
        #expect(set.currentSigningKey(at: beforeSwitch)?.keyID == old.keyID)
        #expect(Set(set.publicJWKS(at: beforeSwitch).keys.compactMap(\.keyID)) == [old.keyID, new.keyID])

        // Day 10.5: the new key signs, the retired key is still published.
        let afterSwitch = Self.t0 + 10.5 * Self.day
        #expect(set.currentSigningKey(at: afterSwitch)?.keyID == new.keyID)
        #expect(set.publicJWKS(at: afterSwitch).keys.count == 2)
        #expect(set.publicJWKS(at: afterSwitch).keys.allSatisfy { $0.privateKey == nil })

        // Day 12: only the new key remains.
        let later = Self.t0 + 12 * Self.day
        #expect(set.publicJWKS(at: later).keys.compactMap(\.keyID) == [new.keyID])
        #expect(set.verificationKeys(at: later).keys.map(\.keyID) == [new.keyID])

        // Before anything activates there is no signing key.
        #expect(set.currentSigningKey(at: Self.t0 - 1) == nil)
    }

    @Test func newestActivatedKeyWinsAndRetiredNeverSigns() throws {
        let a = ScheduledSigningKey(key: try .generate(), createdAt: Self.t0, activatesAt: Self.t0)
        let b = ScheduledSigningKey(key: try .generate(.edDSA), createdAt: Self.t0 + 1, activatesAt: Self.t0 + 5)
        let c = ScheduledSigningKey(key: try .generate(), createdAt: Self.t0 + 2, activatesAt: Self.t0 + 6, retiredAt: Self.t0 + 7)
        let set = SigningKeySet([c, a, b])
        #expect(set.currentSigningKey(at: Self.t0 + 5)?.keyID == b.keyID)
        #expect(set.currentSigningKey(at: Self.t0 + 6.5)?.keyID == c.keyID)
        #expect(set.currentSigningKey(at: Self.t0 + 8)?.keyID == b.keyID)
    }

    @Test func tokensSignedWithTheCurrentKeyVerifyAgainstThePublishedSet() throws {
        let key = ScheduledSigningKey(key: try .generate(), createdAt: Self.t0, activatesAt: Self.t0)
        let set = SigningKeySet([key])
        let signer = try #require(set.currentSigningKey(at: Self.t0 + 1))
        let token = try JWTSigner.sign(["iss": JSONValue.string("me"), "exp": .integer(1_700_000_100)], with: signer.key, type: "at+jwt")
        let verifier = JWTVerifier(allowedAlgorithms: [.es256, .edDSA], rules: ClaimRules(issuers: ["me"], audiences: nil))
        let jwt = try verifier.verify(token, keys: set.verificationKeys(at: Self.t0 + 1), now: Self.t0 + 1)
        #expect(jwt.header.type == "at+jwt")
    }
}

@Suite struct RSASigningKeyTests {
    @Test func rs256KeysSignVerifiableTokensAndRoundTripThroughTheirPrivateJWK() throws {
        let key = try SigningKey.generate(.rs256)
        #expect(key.algorithm == .rs256)
        #expect(key.publicJWK.keyType == "RSA" && key.publicJWK.algorithm == "RS256" && !key.publicJWK.isPrivate)
        let token = try JWTSigner.sign(["sub": .string("u1"), "exp": .integer(Int64(Date().timeIntervalSince1970) + 60)], with: key)
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: nil, audiences: nil))
        let verified = try verifier.verify(token, keys: VerificationKeySet(jwks: JWKSet(keys: [key.publicJWK])))
        #expect(verified.algorithm == .rs256)
        let restored = try SigningKey(privateJWKData: key.privateJWKData())
        #expect(restored.keyID == key.keyID && restored.algorithm == .rs256)
        let again = try JWTSigner.sign(["sub": .string("u2"), "exp": .integer(Int64(Date().timeIntervalSince1970) + 60)], with: restored)
        #expect(try verifier.verify(again, key: key.verificationKey).claims.string("sub") == "u2")
    }

    @Test func anRSAPrivateJWKWithAWrongMemberOrTooShortIsRefused() throws {
        let key = try SigningKey.generate(.rs256)
        var jwk = try JWK(json: key.privateJWKData())
        jwk.qi = nil
        #expect(throws: JOSEError.self) { try SigningKey(privateJWK: jwk) }
        var mismatched = try JWK(json: key.privateJWKData())
        mismatched.modulus = try SigningKey.generate(.rs256).publicJWK.modulus
        #expect(throws: JOSEError.self) { try SigningKey(privateJWK: mismatched) }
    }

    /// The key ring's reload of its own sealed keys skips only the RSA parts' primality check: the key signs as
    /// before, and a JWK whose n does not belong to its parts is still refused.
    @Test func aSealedKeyReloadsWithoutTheRSAPartsCheckAndStillChecksTheRest() throws {
        let kek = KeyEncryptionKey.generate()
        for algorithm in [JWSAlgorithm.rs256, .es256, .edDSA] {
            let key = try SigningKey.generate(algorithm)
            let reloaded = try SigningKey(sealedPrivateJWKData: kek.open(kek.seal(key.privateJWKData(), keyID: key.keyID), keyID: key.keyID))
            #expect(reloaded.keyID == key.keyID && reloaded.algorithm == algorithm)
            let message = Array("sealed".utf8)
            try key.verificationKey.verify(signature: try reloaded.sign(message), for: message, algorithm: algorithm)
        }
        let rsa = try SigningKey.generate(.rs256)
        var mismatched = try JWK(json: rsa.privateJWKData())
        mismatched.modulus = try SigningKey.generate(.rs256).publicJWK.modulus
        #expect(throws: JOSEError.self) { try SigningKey(sealedPrivateJWKData: mismatched.jsonData()) }
        let ec = try SigningKey.generate(.es256)
        var wrongY = try JWK(json: ec.privateJWKData())
        wrongY.y = (try SigningKey.generate(.es256)).publicJWK.y
        #expect(throws: JOSEError.self) { try SigningKey(sealedPrivateJWKData: wrongY.jsonData()) }
    }
}
