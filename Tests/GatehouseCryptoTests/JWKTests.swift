import Foundation
import Testing
@testable import GatehouseCrypto

@Suite struct JWKTests {
    @Test func rfc7517AppendixA1PublicKeysParse() throws {
        let jwks = try JWKSet(json: Data(RFC7517.publicJWKS.utf8))
        #expect(jwks.keys.count == 2)
        let ec = try #require(jwks[keyID: "1"])
        #expect(ec.keyType == "EC" && ec.curve == "P-256" && ec.use == "enc" && !ec.isPrivate)
        #expect(try ec.kind() == .ecP256)
        let rsa = try #require(jwks[keyID: "2011-04-29"])
        #expect(rsa.algorithm == "RS256" && rsa.exponent == "AQAB")
        #expect(Base64URL.decode(rsa.modulus!)?.count == 256)
        // The RSA key is a usable 2048-bit verification key; the EC key is `use: enc`, so skipped.
        let set = VerificationKeySet(jwks: jwks)
        #expect(set.keys.map(\.keyID) == ["2011-04-29"])
        #expect(set.skipped.map(\.jwk.keyID) == ["1"])
        #expect(set.keys.first?.pinnedAlgorithm == .rs256)
    }

    @Test func rfc7517AppendixA2PrivateKeysParse() throws {
        let jwks = try JWKSet(json: Data(RFC7517.privateJWKS.utf8))
        let ec = try #require(jwks[keyID: "1"])
        #expect(ec.isPrivate && ec.privateKey == "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE")
        let rsa = try #require(jwks[keyID: "2011-04-29"])
        #expect(rsa.isPrivate && rsa.p != nil && rsa.qi != nil)
        // The public view strips every private member.
        let publicRSA = rsa.publicKey
        #expect(!publicRSA.isPrivate && publicRSA.p == nil && publicRSA.dq == nil)
        #expect(!String(decoding: publicRSA.jsonData(), as: UTF8.self).contains("\"d\""))
        // The EC private key imports as a signing key (x/y match d).
        var signable = ec
        signable.use = nil
        let key = try SigningKey(privateJWK: signable)
        #expect(key.publicJWK.x == ec.x && key.publicJWK.y == ec.y)
    }

    @Test func rfc7638Thumbprint() throws {
        let jwks = try JWKSet(json: Data(RFC7517.publicJWKS.utf8))
        #expect(try jwks[keyID: "2011-04-29"]!.thumbprint() == RFC7638.thumbprint)
        // Metadata does not change the thumbprint.
        var other = jwks[keyID: "2011-04-29"]!
        other.keyID = "x"
        other.algorithm = nil
        #expect(try other.thumbprint() == RFC7638.thumbprint)
    }

    @Test func rfc8037Ed25519KeyAndThumbprint() throws {
        let jwk = JWK(keyType: "OKP", curve: "Ed25519", x: RFC8037.x, privateKey: RFC8037.d)
        #expect(try jwk.thumbprint() == RFC8037.thumbprint)
        let key = try SigningKey(privateJWK: jwk)
        #expect(key.keyID == RFC8037.thumbprint)
        #expect(key.publicJWK.x == RFC8037.x)
        #expect(key.algorithm == .edDSA)
    }

    @Test func rejectsWeakRSA() throws {
        let weak = try EVPKey.generateRSA(bits: 1024)
        let jwk = JWK(keyType: "RSA", modulus: Base64URL.encode(try weak.bigNumber("n")), exponent: "AQAB")
        #expect(throws: JOSEError.weakKey) { try VerificationKey(jwk: jwk) }
    }

    @Test func rejectsPointOffTheCurveAndBadMembers() throws {
        var x = Base64URL.decode(RFC7515.ecX)!
        x[31] ^= 1
        let offCurve = JWK(keyType: "EC", curve: "P-256", x: Base64URL.encode(x), y: RFC7515.ecY)
        #expect(throws: JOSEError.self) { try VerificationKey(jwk: offCurve) }
        let shortX = JWK(keyType: "EC", curve: "P-256", x: "AAAA", y: RFC7515.ecY)
        #expect(throws: JOSEError.invalidKey("x must be 32 bytes")) { try VerificationKey(jwk: shortX) }
        let padded = JWK(keyType: "EC", curve: "P-256", x: RFC7515.ecX + "=", y: RFC7515.ecY)
        #expect(throws: JOSEError.malformedBase64) { try VerificationKey(jwk: padded) }
        #expect(throws: JOSEError.unsupportedKeyType("EC P-384")) {
            try VerificationKey(jwk: JWK(keyType: "EC", curve: "P-384", x: "AA", y: "AA"))
        }
        #expect(throws: JOSEError.unsupportedKeyType("oct")) { try VerificationKey(jwk: JWK(keyType: "oct")) }
        #expect(throws: JOSEError.malformedJSON) { try JWKSet(json: Data("{\"keys\":5}".utf8)) }
    }

    @Test func keysBuiltFromJWKAreCached() throws {
        let cache = VerificationKeyCache(capacity: 2)
        let jwk = JWK(keyType: "EC", curve: "P-256", x: RFC7515.ecX, y: RFC7515.ecY, keyID: "a")
        let first = try cache.key(for: jwk)
        let second = try cache.key(for: jwk)
        #expect(first.evp === second.evp)
        #expect(cache.count == 1)
        var renamed = jwk
        renamed.keyID = "b"
        #expect(try cache.key(for: renamed).keyID == "b")   // metadata is part of the identity
        #expect(cache.count == 2)
    }

    @Test func jwksSerialisationRoundTrips() throws {
        let key = try SigningKey.generate(.es256)
        let jwks = JWKSet(keys: [key.publicJWK])
        let parsed = try JWKSet(json: jwks.jsonData())
        #expect(parsed == jwks)
        #expect(try parsed.keys[0].thumbprint() == key.keyID)
    }
}
