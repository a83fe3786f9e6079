import Foundation
import Testing
@testable import GatehouseCrypto

/// Known-answer and negative tests for compact JWS.
@Suite struct JWSTests {
    static let ecKey = try! VerificationKey(jwk: JWK(keyType: "EC", curve: "P-256", x: RFC7515.ecX, y: RFC7515.ecY))
    static let rsaKey = try! VerificationKey(jwk: JWK(keyType: "RSA", modulus: RFC7515.rsaN, exponent: RFC7515.rsaE))
    static let edKey = try! VerificationKey(jwk: JWK(keyType: "OKP", curve: "Ed25519", x: RFC8037.x))
    static let all: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases)

    @Test func rfc7515A3ES256Verifies() throws {
        let jws = try CompactJWS(RFC7515.es256Token)
        #expect(jws.header.algorithm == "ES256")
        for _ in 0..<3 {   // pooled contexts: fail then succeed again
            try jws.verify(with: Self.ecKey, allowedAlgorithms: [.es256])
            #expect(throws: JOSEError.invalidSignature) { try Self.ecKey.verify(signature: jws.signature, for: [1], algorithm: .es256) }
        }
        #expect(String(decoding: jws.payload, as: UTF8.self).contains("\"iss\":\"joe\""))
    }

    /// The RFC tokens as JWTs: claims with CR LF whitespace, `exp` edge, a custom boolean claim.
    @Test func rfc7515TokensAsJWTs() throws {
        let rules = ClaimRules(issuers: ["joe"], audiences: nil, leeway: 0)
        let beforeExp = Date(timeIntervalSince1970: RFC7515.exp - 1)
        let es = try JWTVerifier(allowedAlgorithms: [.es256], rules: rules).verify(RFC7515.es256Token, key: Self.ecKey, now: beforeExp)
        #expect(try es.claims.boolean("http://example.com/is_root") == true)
        let rs = try JWTVerifier(allowedAlgorithms: [.rs256], rules: rules).verify(RFC7515.rs256Token, key: Self.rsaKey, now: beforeExp)
        #expect(rs.claims.expiresAt == Date(timeIntervalSince1970: RFC7515.exp))
        #expect(throws: JOSEError.expired) {
            try JWTVerifier(allowedAlgorithms: [.es256], rules: rules)
                .verify(RFC7515.es256Token, key: Self.ecKey, now: Date(timeIntervalSince1970: RFC7515.exp))
        }
    }

    @Test func rfc7515A2RS256VerifiesAndSignsDeterministically() throws {
        try CompactJWS(RFC7515.rs256Token).verify(with: Self.rsaKey, allowedAlgorithms: [.rs256])
        let members = [RFC7515.rsaN, RFC7515.rsaE, RFC7515.rsaD, RFC7515.rsaP, RFC7515.rsaQ,
                       RFC7515.rsaDP, RFC7515.rsaDQ, RFC7515.rsaQI].map { Base64URL.decode($0)! }
        let privateKey = try EVPKey.rsaPrivate(n: members[0], e: members[1], d: members[2], p: members[3],
                                               q: members[4], dp: members[5], dq: members[6], qi: members[7])
        let input = Array("\(RFC7515.rs256Header).\(RFC7515.payload)".utf8)
        let signature = try privateKey.signForTesting(input, algorithm: .rs256)
        #expect(Base64URL.encode(signature) == RFC7515.rs256Signature)
    }

    @Test func ps256RoundTripAndNotConfusedWithRS256() throws {
        let members = [RFC7515.rsaN, RFC7515.rsaE, RFC7515.rsaD, RFC7515.rsaP, RFC7515.rsaQ,
                       RFC7515.rsaDP, RFC7515.rsaDQ, RFC7515.rsaQI].map { Base64URL.decode($0)! }
        let privateKey = try EVPKey.rsaPrivate(n: members[0], e: members[1], d: members[2], p: members[3],
                                               q: members[4], dp: members[5], dq: members[6], qi: members[7])
        let input = Array("eyJhbGciOiJQUzI1NiJ9.\(RFC7515.payload)".utf8)
        let signature = try privateKey.signForTesting(input, algorithm: .ps256)
        try Self.rsaKey.verify(signature: signature, for: input, algorithm: .ps256)
        #expect(throws: JOSEError.invalidSignature) { try Self.rsaKey.verify(signature: signature, for: input, algorithm: .rs256) }
    }

    @Test func rfc8037A4SignsExactlyAndA5Verifies() throws {
        let key = try SigningKey(privateJWK: JWK(keyType: "OKP", curve: "Ed25519", x: RFC8037.x, privateKey: RFC8037.d))
        // Several rounds: contexts are pooled and reused, so the answer must not drift, and a
        // failed verification must not poison the context for the next one.
        for _ in 0..<3 {
            let signature = try key.sign(Array("\(RFC8037.header).\(RFC8037.payload)".utf8))
            #expect(Base64URL.encode(signature) == RFC8037.signature)
            let jws = try CompactJWS(RFC8037.token)
            #expect(String(decoding: jws.payload, as: UTF8.self) == "Example of Ed25519 signing")
            try jws.verify(with: Self.edKey, allowedAlgorithms: [.edDSA])
            #expect(throws: JOSEError.invalidSignature) {
                try Self.edKey.verify(signature: jws.signature, for: Array("tampered".utf8), algorithm: .edDSA)
            }
        }
    }

    @Test func tamperedPayloadIsRejected() throws {
        let payload = Base64URL.encode(Array(#"{"iss":"joe","exp":1300819380,"http://example.com/is_root":false}"#.utf8))
        let token = "\(RFC7515.es256Header).\(payload).\(RFC7515.es256Signature)"
        #expect(throws: JOSEError.invalidSignature) { try CompactJWS(token).verify(with: Self.ecKey, allowedAlgorithms: Self.all) }
    }

    @Test func tamperedSignatureIsRejected() throws {
        for algorithm in [RFC7515.es256Token, RFC7515.rs256Token, RFC8037.token] {
            let parts = algorithm.split(separator: ".").map(String.init)
            var signature = Base64URL.decode(parts[2])!
            signature[10] ^= 0x01
            let token = "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
            let key = algorithm == RFC7515.es256Token ? Self.ecKey : algorithm == RFC8037.token ? Self.edKey : Self.rsaKey
            #expect(throws: JOSEError.invalidSignature) { try CompactJWS(token).verify(with: key, allowedAlgorithms: Self.all) }
        }
        // A truncated ES256 signature is invalid, not a crash.
        let truncated = Base64URL.encode(Base64URL.decode(RFC7515.es256Signature)!.dropLast(3))
        let short = "\(RFC7515.es256Header).\(RFC7515.payload).\(truncated)"
        #expect(throws: JOSEError.invalidSignature) { try CompactJWS(short).verify(with: Self.ecKey, allowedAlgorithms: Self.all) }
    }

    @Test func wrongKeyIsRejected() throws {
        let other = try SigningKey.generate(.es256).verificationKey
        #expect(throws: JOSEError.invalidSignature) { try CompactJWS(RFC7515.es256Token).verify(with: other, allowedAlgorithms: Self.all) }
        // A key of another type for the token's alg: mismatch, never an attempt.
        #expect(throws: JOSEError.keyTypeMismatch) { try CompactJWS(RFC7515.es256Token).verify(with: Self.rsaKey, allowedAlgorithms: Self.all) }
        #expect(throws: JOSEError.keyTypeMismatch) { try CompactJWS(RFC7515.rs256Token).verify(with: Self.edKey, allowedAlgorithms: Self.all) }
    }

    @Test func algNoneIsUnsupported() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
        for token in ["\(header).\(RFC7515.payload).", "\(header).\(RFC7515.payload).AAAA"] {
            #expect(throws: JOSEError.self) { try CompactJWS(token).verify(with: Self.ecKey, allowedAlgorithms: Self.all) }
        }
        #expect(throws: JOSEError.unsupportedAlgorithm("none")) {
            try CompactJWS("\(header).\(RFC7515.payload).AAAA").verify(with: Self.ecKey, allowedAlgorithms: Self.all)
        }
        // An empty signature is malformed before the algorithm is even considered.
        #expect(throws: JOSEError.malformedToken) { try CompactJWS("\(header).\(RFC7515.payload).") }
    }

    @Test func hs256WithPublicKeyAsSecretIsUnsupported() throws {
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let input = "\(header).\(RFC7515.payload)"
        let secret = Self.rsaKey.jwk.jsonData()   // the attacker's "HMAC key": our public key
        let mac = HMACSHA256.authenticationCode(for: Array(input.utf8), key: Array(secret))
        let token = "\(input).\(Base64URL.encode(mac))"
        #expect(throws: JOSEError.unsupportedAlgorithm("HS256")) {
            try CompactJWS(token).verify(with: Self.rsaKey, allowedAlgorithms: Self.all)
        }
    }

    @Test func algorithmOutsideTheAllowListIsRejected() throws {
        #expect(throws: JOSEError.algorithmNotAllowed(.es256)) {
            try CompactJWS(RFC7515.es256Token).verify(with: Self.ecKey, allowedAlgorithms: [.rs256])
        }
    }

    @Test func keyPinnedToAnotherAlgorithmIsRejected() throws {
        let pinned = try VerificationKey(jwk: JWK(keyType: "RSA", modulus: RFC7515.rsaN, exponent: RFC7515.rsaE, algorithm: "PS256"))
        #expect(throws: JOSEError.keyTypeMismatch) { try CompactJWS(RFC7515.rs256Token).verify(with: pinned, allowedAlgorithms: Self.all) }
    }

    @Test func malformedTokensHaveDistinctErrors() {
        #expect(throws: JOSEError.malformedToken) { try CompactJWS("abc") }
        #expect(throws: JOSEError.malformedToken) { try CompactJWS("a.b") }
        #expect(throws: JOSEError.malformedToken) { try CompactJWS("a.b.c.d") }
        #expect(throws: JOSEError.malformedBase64) { try CompactJWS("\(RFC7515.es256Header)=.\(RFC7515.payload).\(RFC7515.es256Signature)") }
        #expect(throws: JOSEError.malformedBase64) { try CompactJWS("\(RFC7515.es256Header).\(RFC7515.payload).\(RFC7515.es256Signature)*") }
        let notJSON = Base64URL.encode(Array("not json".utf8))
        #expect(throws: JOSEError.malformedJSON) { try CompactJWS("\(notJSON).\(RFC7515.payload).\(RFC7515.es256Signature)") }
        let noAlg = Base64URL.encode(Array(#"{"typ":"JWT"}"#.utf8))
        #expect(throws: JOSEError.malformedJSON) { try CompactJWS("\(noAlg).\(RFC7515.payload).\(RFC7515.es256Signature)") }
    }

    @Test func oversizedTokenIsRejectedBeforeParsing() {
        let huge = String(repeating: "A", count: 16 * 1024 + 1)
        #expect(throws: JOSEError.tokenTooLarge(limit: 16 * 1024)) { try CompactJWS(huge) }
        #expect(throws: JOSEError.tokenTooLarge(limit: 100)) { try CompactJWS(RFC7515.rs256Token, maximumBytes: 100) }
    }

    @Test func criticalHeaderIsRejected() throws {
        let key = try SigningKey.generate(.es256)
        let header = Base64URL.encode(Array(#"{"alg":"ES256","crit":["exp"],"exp":1}"#.utf8))
        let input = "\(header).\(RFC7515.payload)"
        let token = "\(input).\(Base64URL.encode(try key.sign(Array(input.utf8))))"
        #expect(throws: JOSEError.unsupportedCriticalHeader) {
            try CompactJWS(token).verify(with: key.verificationKey, allowedAlgorithms: [.es256])
        }
    }

    @Test func ecdsaDERConversionRoundTrips() {
        for _ in 0..<50 {
            var raw = SecureRandom.bytes(64)
            raw[0] = [0, 0x80, 0x7f].randomElement()!    // exercise leading zero and high-bit cases
            raw[32] = [0, 0x80, 0x01].randomElement()!
            let der = raw.withUnsafeBytes { ECDSASignature.derFromRaw($0) }
            #expect(ECDSASignature.rawFromDER(der, coordinateBytes: 32) == raw)
        }
    }
}
