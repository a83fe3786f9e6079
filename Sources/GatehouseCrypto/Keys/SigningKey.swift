import COpenSSL
import Foundation

/// One of our own private signing keys: ES256 (P-256), RS256 (RSA, 2048 bits or more) or EdDSA (Ed25519).
///
/// RS256 exists because OpenID Connect Core §15.1 makes it mandatory for ID tokens and many relying
/// parties accept nothing else; access tokens stay ES256 (smaller, faster to sign).
///
/// The `kid` is the RFC 7638 thumbprint of the public key, so it is stable across export and
/// import and needs no separate bookkeeping. Export with ``privateJWKData()`` and store the bytes
/// encrypted (``KeyEncryptionKey``); never log them.
public struct SigningKey: Sendable {
    /// The algorithm this key signs with.
    public let algorithm: JWSAlgorithm
    /// RFC 7638 thumbprint of the public key.
    public let keyID: String
    /// The public JWK (with `kid`, `alg` and `use: sig`) to publish in our JWKS.
    public let publicJWK: JWK
    /// The matching verification key (for checking our own tokens).
    public let verificationKey: VerificationKey

    let evp: EVPKey
    private let privateJWK: JWK

    /// Bits of the RSA keys ``generate(_:)`` makes for RS256.
    public static let rsaBits = 2048

    /// Generates a fresh key for `algorithm` (`.es256`, `.rs256` or `.edDSA`). An RSA key takes tens
    /// of milliseconds (sometimes more) to generate: do it at start-up or rotation, never per request.
    public static func generate(_ algorithm: JWSAlgorithm = .es256) throws(JOSEError) -> SigningKey {
        switch algorithm {
        case .es256: return try SigningKey(evp: mapCrypto { () throws(CryptoError) in try EVPKey.generateP256() }, algorithm: .es256)
        case .edDSA: return try SigningKey(evp: mapCrypto { () throws(CryptoError) in try EVPKey.generateEd25519() }, algorithm: .edDSA)
        case .rs256:
            return try SigningKey(evp: mapCrypto { () throws(CryptoError) in try EVPKey.generateRSA(bits: UInt32(rsaBits)) }, algorithm: .rs256)
        case .ps256: throw .unsupportedAlgorithm(algorithm.rawValue)
        }
    }

    /// Imports a private JWK (EC P-256 or OKP Ed25519 with `d`, RSA with `d` and every CRT member);
    /// the public part must match the private one.
    public init(privateJWK jwk: JWK) throws(JOSEError) {
        try self.init(privateJWK: jwk, checkingRSAParts: true)
    }

    private init(privateJWK jwk: JWK, checkingRSAParts: Bool) throws(JOSEError) {
        guard jwk.isPrivate else { throw .notAPrivateKey }
        if try jwk.kind() == .rsa {
            try self.init(rsaPrivateJWK: jwk, checkingParts: checkingRSAParts)
            return
        }
        let d = try decodeMember(jwk.privateKey, "d", length: 32)
        switch try jwk.kind() {
        case .ecP256:
            let x = try decodeMember(jwk.x, "x", length: 32), y = try decodeMember(jwk.y, "y", length: 32)
            let evp: EVPKey
            do { evp = try EVPKey.p256(x: x, y: y, d: d) } catch { throw .invalidKey("EC private key does not match x/y") }
            try self.init(evp: evp, algorithm: .es256)
        case .ed25519:
            let evp = try mapCrypto { () throws(CryptoError) in try EVPKey.ed25519(seed: d) }
            try self.init(evp: evp, algorithm: .edDSA)
            guard publicJWK.x == jwk.x else { throw .invalidKey("Ed25519 x does not match d") }
        case .rsa:
            throw .unsupportedKeyType("unreachable: RSA keys are imported above")
        }
    }

    private init(rsaPrivateJWK jwk: JWK, checkingParts: Bool) throws(JOSEError) {
        let n = try decodeMember(jwk.modulus, "n"), e = try decodeMember(jwk.exponent, "e")
        var secrets = [try decodeMember(jwk.privateKey, "d"), try decodeMember(jwk.p, "p"), try decodeMember(jwk.q, "q"),
                       try decodeMember(jwk.dp, "dp"), try decodeMember(jwk.dq, "dq"), try decodeMember(jwk.qi, "qi")]
        defer { for index in secrets.indices { secrets[index].withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } } }
        guard n.drop(while: { $0 == 0 }).count * 8 >= VerificationKey.minimumRSABits else { throw .weakKey }
        let evp: EVPKey
        do {
            evp = try EVPKey.rsa(members: [n, e] + secrets)
            // fromdata takes the members as given; a key whose parts do not belong together would sign garbage.
            if checkingParts { try evp.check(privateToo: true) }
        } catch { throw .invalidKey("unusable RSA private key") }
        try self.init(evp: evp, algorithm: .rs256)
        guard publicJWK.modulus == jwk.modulus, publicJWK.exponent == jwk.exponent else { throw .invalidKey("RSA n/e do not match") }
        if !checkingParts {
            // One signature that verifies under n and e shows the parts belong together, without the primality tests.
            let probe = Array("gatehouse signing key".utf8)
            do { try verificationKey.verify(signature: try sign(probe), for: probe, algorithm: .rs256) } catch {
                throw .invalidKey("unusable RSA private key")
            }
        }
    }

    /// Imports a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, e.g. Apple's `.p8` for the Sign in
    /// with Apple client secret) or SEC 1 (`BEGIN EC PRIVATE KEY`). P-256 and Ed25519 only.
    ///
    /// The `keyID` is still our thumbprint; a provider's own key id (Apple's) goes into the JWT
    /// header through `JWTSigner.sign(_:with:keyID:type:)`.
    public init(pem: String) throws(JOSEError) {
        let evp: EVPKey
        do { evp = try EVPKey.privateKey(pem: pem) } catch { throw .invalidKey("unreadable PEM private key") }
        if evp.isP256 {
            try self.init(evp: evp, algorithm: .es256)
        } else if evp.isEd25519 {
            try self.init(evp: evp, algorithm: .edDSA)
        } else {
            throw .unsupportedKeyType("PEM key is neither P-256 nor Ed25519")
        }
    }

    /// Imports the bytes produced by ``privateJWKData()``.
    public init(privateJWKData data: some DataProtocol) throws(JOSEError) {
        try self.init(privateJWK: JWK(json: data))
    }

    /// Reloads the bytes ``privateJWKData()`` produced, from storage that authenticated them (the key ring's rows,
    /// sealed under the key-encryption key): the key was generated, or imported and checked, before it was sealed,
    /// so OpenSSL's RSA pairwise check (SP 800-56B), which tests p and q for primality — some 25 ms of a start-up
    /// per RSA key — is replaced by one signature verified under `n` and `e`. The EC and Ed25519 checks run as on import.
    public init(sealedPrivateJWKData data: some DataProtocol) throws(JOSEError) {
        try self.init(privateJWK: JWK(json: data), checkingRSAParts: false)
    }

    private init(evp: EVPKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        self.evp = evp
        self.algorithm = algorithm
        var jwk: JWK
        var d: [UInt8]
        var crt: [[UInt8]] = []
        do {
            switch algorithm {
            case .rs256:
                jwk = JWK(keyType: "RSA", modulus: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_RSA_N)),
                          exponent: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_RSA_E)))
                d = try evp.bigNumber(OSSL_PKEY_PARAM_RSA_D)
                crt = [try evp.bigNumber("rsa-factor1"), try evp.bigNumber("rsa-factor2"),
                       try evp.bigNumber("rsa-exponent1"), try evp.bigNumber("rsa-exponent2"),
                       try evp.bigNumber("rsa-coefficient1")]
            case .es256:
                jwk = JWK(keyType: "EC", curve: "P-256",
                          x: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_EC_PUB_X, width: 32)),
                          y: Base64URL.encode(try evp.bigNumber(OSSL_PKEY_PARAM_EC_PUB_Y, width: 32)))
                d = try evp.bigNumber(OSSL_PKEY_PARAM_PRIV_KEY, width: 32)
            default:
                jwk = JWK(keyType: "OKP", curve: "Ed25519", x: Base64URL.encode(try evp.rawPublicKey()))
                d = try evp.rawPrivateKey()
            }
        } catch {
            throw .crypto(error)
        }
        defer {
            d.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) }
            for index in crt.indices { crt[index].withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        }
        keyID = try jwk.thumbprint()
        jwk.keyID = keyID
        jwk.algorithm = algorithm.rawValue
        jwk.use = "sig"
        publicJWK = jwk
        jwk.privateKey = Base64URL.encode(d)
        if crt.count == 5 {
            jwk.p = Base64URL.encode(crt[0]); jwk.q = Base64URL.encode(crt[1])
            jwk.dp = Base64URL.encode(crt[2]); jwk.dq = Base64URL.encode(crt[3]); jwk.qi = Base64URL.encode(crt[4])
        }
        privateJWK = jwk
        verificationKey = try VerificationKey(jwk: publicJWK, evp: evp, kind: algorithm.keyKind)
    }

    /// The private JWK as compact JSON bytes, for encrypted storage by another layer.
    public func privateJWKData() -> [UInt8] {
        [UInt8](privateJWK.jsonData())
    }

    /// Signs `message` (concrete overload: no generic dispatch on the hot path).
    public func sign(_ message: [UInt8]) throws(JOSEError) -> [UInt8] {
        let result: Result<[UInt8], CryptoError> = message.withUnsafeBytes { bytes in
            do throws(CryptoError) { return .success(try evp.sign(bytes, algorithm: algorithm)) } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw .crypto(error) }
    }

    /// Signs `message` and returns the raw JWS signature (ES256: 64-byte `r ‖ s`; EdDSA: 64 bytes;
    /// RS256: the modulus length).
    public func sign<Message: Collection>(_ message: Message) throws(JOSEError) -> [UInt8] where Message.Element == UInt8 {
        let result: Result<[UInt8], CryptoError> = withBytes(message) { bytes in
            do throws(CryptoError) { return .success(try evp.sign(bytes, algorithm: algorithm)) } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw .crypto(error) }
    }
}
