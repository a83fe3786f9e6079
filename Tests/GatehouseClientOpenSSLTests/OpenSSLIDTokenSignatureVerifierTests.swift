import Foundation
import GatehouseClient
import GatehouseClientOpenSSL
import GatehouseCrypto
import Testing

/// Real signatures from GatehouseCrypto keys (and the `openssl` tool for PS256), checked through
/// the SDK's verifier protocol and its `IDTokenValidator`.
@Suite struct OpenSSLIDTokenSignatureVerifierTests {
    private let verifier = OpenSSLIDTokenSignatureVerifier()
    private let now = Date()

    /// GatehouseCrypto's JWK as the SDK's wire-level JWK (what a JWKS download decodes to).
    private func sdkJWK(_ key: GatehouseCrypto.JWK) -> GatehouseClient.JWK {
        GatehouseClient.JWK(kty: key.keyType, kid: key.keyID, use: key.use, alg: key.algorithm, n: key.modulus, e: key.exponent,
                            crv: key.curve, x: key.x, y: key.y)
    }

    private func claims(nonce: String = "n-1") -> [String: GatehouseCrypto.JSONValue] {
        ["iss": .string("https://id.example.com"), "sub": .string("user-1"), "aud": .string("cli"), "nonce": .string(nonce),
         "iat": .integer(Int64(now.timeIntervalSince1970)), "exp": .integer(Int64(now.timeIntervalSince1970) + 300)]
    }

    private func check(_ token: String, _ keys: [GatehouseCrypto.JWK]) throws {
        let jws = try CompactJWS(token)
        try verifier.verify(signingInput: jws.signingInput, signature: jws.signature, header: jws.header,
                            jwks: JWKS(keys: keys.map(sdkJWK)))
    }

    /// `token` with its header replaced by `header` (signature kept).
    private func reheader(_ token: String, _ header: String) -> String {
        let parts = token.split(separator: ".")
        return GatehouseCrypto.Base64URL.encode(Array(header.utf8)) + "." + parts[1] + "." + parts[2]
    }

    @Test func es256AndEdDSAVerify() throws {
        for algorithm in [JWSAlgorithm.es256, .edDSA] {
            let key = try SigningKey.generate(algorithm)
            try check(try JWTSigner.sign(claims(), with: key), [key.publicJWK])
        }
    }

    @Test func rs256Verifies() throws {
        let key = try RSASigningKey.generate()
        try check(try key.signJWT(claims()), [key.publicJWK])
    }

    @Test func ps256VerifiesAndIsNotConfusedWithRS256() throws {
        let (token, jwk) = try OpenSSLTool.ps256Token(payload: #"{"sub":"user-1"}"#)
        try check(token, [jwk])
        // The same RSA key's RS256 signature presented as PS256 must fail, and vice versa.
        let rsa = try RSASigningKey.generate()
        var unpinned = rsa.publicJWK
        unpinned.algorithm = nil
        let rs256 = try rsa.signJWT(claims())
        #expect(throws: IDTokenError.signatureInvalid) { try check(reheader(rs256, #"{"alg":"PS256"}"#), [unpinned]) }
        #expect(throws: IDTokenError.signatureInvalid) { try check(reheader(token, #"{"alg":"RS256"}"#), [jwk]) }
    }

    @Test func tamperedPayloadOrSignatureFails() throws {
        let key = try SigningKey.generate(.es256)
        let token = try JWTSigner.sign(claims(), with: key)
        let parts = token.split(separator: ".").map(String.init)
        let otherPayload = GatehouseCrypto.Base64URL.encode(Array(#"{"sub":"admin"}"#.utf8))
        #expect(throws: IDTokenError.signatureInvalid) { try check([parts[0], otherPayload, parts[2]].joined(separator: "."), [key.publicJWK]) }
        var signature = GatehouseCrypto.Base64URL.decode(parts[2])!
        signature[5] ^= 0x01
        let flipped = [parts[0], parts[1], GatehouseCrypto.Base64URL.encode(signature)].joined(separator: ".")
        #expect(throws: IDTokenError.signatureInvalid) { try check(flipped, [key.publicJWK]) }
    }

    @Test func wrongKeyOrUnknownKidFails() throws {
        let signer = try SigningKey.generate(.es256), other = try SigningKey.generate(.es256)
        let token = try JWTSigner.sign(claims(), with: signer)
        #expect(throws: IDTokenError.signatureInvalid) { try check(token, [other.publicJWK]) }
        // The right key material under another kid is not a candidate when the header names a kid.
        var renamed = signer.publicJWK
        renamed.keyID = "someone-else"
        #expect(throws: IDTokenError.signatureInvalid) { try check(token, [renamed]) }
        // Several keys: the one with the matching kid is found.
        try check(token, [other.publicJWK, signer.publicJWK])
    }

    @Test func noneAndHMACAreNeverAccepted() throws {
        let key = try RSASigningKey.generate()
        let token = try key.signJWT(claims())
        for alg in ["none", "HS256", "HS512", "RS384"] {
            #expect(throws: IDTokenError.algorithmNotAllowed(alg)) {
                try check(reheader(token, #"{"alg":"\#(alg)","kid":"\#(key.keyID)"}"#), [key.publicJWK])
            }
        }
        #expect(OpenSSLIDTokenSignatureVerifier.supportedAlgorithms == ["ES256", "RS256", "PS256", "EdDSA"])
    }

    @Test func keyPinnedToAnotherAlgorithmOrUseIsSkipped() throws {
        let key = try SigningKey.generate(.es256)
        let token = try JWTSigner.sign(claims(), with: key)
        var encryption = key.publicJWK
        encryption.use = "enc"
        #expect(throws: IDTokenError.signatureInvalid) { try check(token, [encryption]) }
    }

    @Test func validatorAcceptsGoodTokenAndChecksClaims() throws {
        let key = try SigningKey.generate(.es256)
        let jwks = JWKS(keys: [sdkJWK(key.publicJWK)])
        let validator = IDTokenValidator(issuer: "https://id.example.com", clientID: "cli")
        let good = try validator.validate(try JWTSigner.sign(claims(), with: key), nonce: "n-1", signatureCheck: .verify(verifier, jwks: jwks))
        #expect(good.subject == "user-1")
        #expect(throws: IDTokenError.nonceMismatch) {
            try validator.validate(try JWTSigner.sign(claims(nonce: "replayed"), with: key), nonce: "n-1", signatureCheck: .verify(verifier, jwks: jwks))
        }
        let forged = reheader(try JWTSigner.sign(claims(), with: key), #"{"alg":"none"}"#)
        #expect(throws: IDTokenError.algorithmNotAllowed("none")) {
            try validator.validate(forged, nonce: "n-1", signatureCheck: .verify(verifier, jwks: jwks))
        }
    }
}
