/// The COSE algorithms a WebAuthn credential may use here (IANA COSE Algorithms registry).
public enum COSEAlgorithm: Int, Sendable, CaseIterable {
    /// ECDSA on P-256 with SHA-256.
    case es256 = -7
    /// Ed25519.
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257

    /// The JWS algorithm that verifies the same signatures.
    var jws: JWSAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        case .rs256: .rs256
        }
    }
}

/// Why a COSE key was refused.
public enum COSEKeyError: Error, Sendable, Equatable {
    /// Not a CBOR map, a member missing or of the wrong type or size.
    case malformed(String)
    /// `alg` names an algorithm outside ``COSEAlgorithm``.
    case unsupportedAlgorithm(Int)
    /// `kty` or `crv` does not fit `alg`.
    case keyTypeMismatch
    /// OpenSSL refused the key material (a point off the curve, RSA below 2048 bits).
    case invalidKey
}

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053), as WebAuthn authenticators
/// return it, imported into OpenSSL.
///
/// EC2 keys must be P-256 with 32-byte coordinates (checked on the curve), OKP keys Ed25519, RSA
/// keys at least 2048 bits; `alg` is required and must match the key type, so a key can verify
/// only the one algorithm it was registered with.
public struct COSEKey: Sendable {
    /// The algorithm the key is bound to.
    public let algorithm: COSEAlgorithm
    /// The key as a JWK (public members only).
    public let jwk: JWK
    let key: VerificationKey

    // COSE labels (RFC 9052 §7.1, RFC 9053 §7).
    private static let kty = 1, alg = 3, crv = -1, x = -2, y = -3, rsaN = -1, rsaE = -2

    /// Parses and imports the COSE_Key encoded in `bytes` (exactly one CBOR map).
    public init(bytes: [UInt8]) throws(COSEKeyError) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .malformed("not CBOR: \(error)") }
        try self.init(cbor: value)
    }

    /// Imports a decoded COSE_Key map.
    public init(cbor: CBORValue) throws(COSEKeyError) {
        guard cbor.entries != nil else { throw .malformed("not a map") }
        guard let kty = cbor[Self.kty]?.int else { throw .malformed("kty") }
        guard let algValue = cbor[Self.alg]?.int else { throw .malformed("alg") }
        guard let algorithm = COSEAlgorithm(rawValue: algValue) else { throw .unsupportedAlgorithm(algValue) }
        let jwk: JWK
        switch algorithm {
        case .es256:
            guard kty == 2 else { throw .keyTypeMismatch }
            guard cbor[Self.crv]?.int == 1 else { throw .keyTypeMismatch }
            guard let x = cbor[Self.x]?.bytes, x.count == 32, let y = cbor[Self.y]?.bytes, y.count == 32 else {
                throw .malformed("EC2 x/y must be 32-byte strings")
            }
            jwk = JWK(keyType: "EC", curve: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
        case .edDSA:
            guard kty == 1 else { throw .keyTypeMismatch }
            guard cbor[Self.crv]?.int == 6 else { throw .keyTypeMismatch }
            guard let x = cbor[Self.x]?.bytes, x.count == 32 else { throw .malformed("OKP x must be a 32-byte string") }
            jwk = JWK(keyType: "OKP", curve: "Ed25519", x: Base64URL.encode(x))
        case .rs256:
            guard kty == 3 else { throw .keyTypeMismatch }
            guard let n = cbor[Self.rsaN]?.bytes, let e = cbor[Self.rsaE]?.bytes, !n.isEmpty, !e.isEmpty else {
                throw .malformed("RSA n/e must be byte strings")
            }
            jwk = JWK(keyType: "RSA", modulus: Base64URL.encode(n), exponent: Base64URL.encode(e))
        }
        do { key = try VerificationKey(jwk: jwk) } catch { throw .invalidKey }
        self.algorithm = algorithm
        self.jwk = jwk
    }

    /// Checks a WebAuthn signature over `message` (authenticator data ‖ SHA-256 of the client data).
    ///
    /// WebAuthn ES256 signatures are DER `ECDSA-Sig-Value`s (WebAuthn §6.5.6), unlike JWS's raw `r ‖ s`;
    /// RS256 and EdDSA signatures are the same bytes in both. Returns `false` for a wrong or malformed
    /// signature.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        var raw = signature
        if algorithm == .es256 {
            guard let converted = ECDSASignature.rawFromDER(signature, coordinateBytes: 32) else { return false }
            raw = converted
        }
        do {
            try key.verify(signature: raw, for: message, algorithm: algorithm.jws)
            return true
        } catch {
            return false
        }
    }
}
