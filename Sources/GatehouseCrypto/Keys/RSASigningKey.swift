import COpenSSL

/// A 2048-bit RSA key that signs RS256 JWTs.
///
/// Gatehouse's own RS256 keys are ``SigningKey``s (sealed, rotated). This type exists for the
/// provider simulator and for tests, which must produce tokens exactly as Apple and Google do —
/// RS256 under keys published in a JWKS. The `kid` is the RFC 7638 thumbprint of the public key.
public struct RSASigningKey: Sendable {
    /// RFC 7638 thumbprint of the public key, used as `kid`.
    public let keyID: String
    /// The public JWK (`kty` RSA, `alg` RS256, `use` sig, `kid`) to publish in a JWKS.
    public let publicJWK: JWK
    /// The matching verification key.
    public let verificationKey: VerificationKey

    let evp: EVPKey

    /// Generates a fresh key (2048 bits by default; generation takes tens of milliseconds).
    public static func generate(bits: Int = 2048) throws(JOSEError) -> RSASigningKey {
        guard bits >= VerificationKey.minimumRSABits else { throw .weakKey }
        let evp = try mapCrypto { () throws(CryptoError) in try EVPKey.generateRSA(bits: UInt32(bits)) }
        return try RSASigningKey(evp: evp)
    }

    private init(evp: EVPKey) throws(JOSEError) {
        self.evp = evp
        var jwk: JWK
        do {
            jwk = JWK(keyType: "RSA",
                      modulus: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_RSA_N)),
                      exponent: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_RSA_E)))
        } catch {
            throw .crypto(error)
        }
        keyID = try jwk.thumbprint()
        jwk.keyID = keyID
        jwk.algorithm = JWSAlgorithm.rs256.rawValue
        jwk.use = "sig"
        publicJWK = jwk
        verificationKey = try VerificationKey(jwk: jwk, evp: evp, kind: .rsa)
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5 / SHA-256 and returns the raw signature.
    public func sign(_ message: [UInt8]) throws(JOSEError) -> [UInt8] {
        do { return try evp.signForTesting(message, algorithm: .rs256) } catch { throw .crypto(error) }
    }

    /// Signs a JWT: header `{"alg":"RS256","kid":…,"typ":…}`, payload the compact JSON of `claims`.
    /// `keyID` overrides the header `kid` (default: this key's thumbprint); `type` nil omits `typ`.
    public func signJWT(_ claims: [String: JSONValue], keyID: String? = nil, type: String? = "JWT") throws(JOSEError) -> String {
        let header = JWSHeader(algorithm: .rs256, keyID: keyID ?? self.keyID, type: type)
        var input = Base64URL.encode(header.jsonBytes)
        input += "."
        input += Base64URL.encode(JSONValue.object(claims).jsonBytes)
        let signature = try sign(Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }
}
