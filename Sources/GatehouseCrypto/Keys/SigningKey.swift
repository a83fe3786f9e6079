import COpenSSL
import Foundation

/// One of our own private signing keys: ES256 (P-256) or EdDSA (Ed25519).
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

    /// Generates a fresh key for `algorithm` (`.es256` or `.edDSA`).
    public static func generate(_ algorithm: JWSAlgorithm = .es256) throws(JOSEError) -> SigningKey {
        switch algorithm {
        case .es256: return try SigningKey(evp: mapCrypto { () throws(CryptoError) in try EVPKey.generateP256() }, algorithm: .es256)
        case .edDSA: return try SigningKey(evp: mapCrypto { () throws(CryptoError) in try EVPKey.generateEd25519() }, algorithm: .edDSA)
        case .rs256, .ps256: throw .unsupportedAlgorithm(algorithm.rawValue)
        }
    }

    /// Imports a private JWK (EC P-256 or OKP Ed25519 with `d`); the public part must match `d`.
    public init(privateJWK jwk: JWK) throws(JOSEError) {
        guard jwk.isPrivate else { throw .notAPrivateKey }
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
            throw .unsupportedKeyType("RSA signing keys are not supported")
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

    private init(evp: EVPKey, algorithm: JWSAlgorithm) throws(JOSEError) {
        self.evp = evp
        self.algorithm = algorithm
        var jwk: JWK
        var d: [UInt8]
        do {
            switch algorithm {
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
        defer { d.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        keyID = try jwk.thumbprint()
        jwk.keyID = keyID
        jwk.algorithm = algorithm.rawValue
        jwk.use = "sig"
        publicJWK = jwk
        jwk.privateKey = Base64URL.encode(d)
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

    /// Signs `message` and returns the raw JWS signature (ES256: 64-byte `r ‖ s`; EdDSA: 64 bytes).
    public func sign<Message: Collection>(_ message: Message) throws(JOSEError) -> [UInt8] where Message.Element == UInt8 {
        let result: Result<[UInt8], CryptoError> = withBytes(message) { bytes in
            do throws(CryptoError) { return .success(try evp.sign(bytes, algorithm: algorithm)) } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw .crypto(error) }
    }
}
