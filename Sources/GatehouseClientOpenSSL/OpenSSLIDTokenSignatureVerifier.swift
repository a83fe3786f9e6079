import Foundation
import GatehouseClient
import GatehouseCrypto

/// `IDTokenSignatureVerifier` for Linux (and anywhere OpenSSL 3 is available), built on
/// GatehouseCrypto's `VerificationKey`: ES256 (P-256), RS256 and PS256 (RSA ≥ 2048 bits) and
/// EdDSA (Ed25519).
///
/// `none` and the `HS*` family can never verify: they are not `JWSAlgorithm` cases, so a token
/// naming them is refused before any key is looked at (the SDK's `IDTokenValidator` refuses
/// them too; this is a second, independent line). A key whose JWK pins another `alg`, has
/// `use` other than `sig`, or is a weak RSA key is skipped.
///
/// This lives in its own small target so the `GatehouseClient` product stays Foundation-only:
///
/// ```swift
/// import GatehouseClient
/// import GatehouseClientOpenSSL
///
/// let client = try await OAuthClient.discover(issuer: issuer, configuration: configuration,
///                                             signatureVerifier: OpenSSLIDTokenSignatureVerifier())
/// ```
public struct OpenSSLIDTokenSignatureVerifier: IDTokenSignatureVerifier {
    /// The `alg` values this verifier can check.
    public static let supportedAlgorithms: Set<String> = Set(JWSAlgorithm.allCases.map(\.rawValue))

    public init() {}

    /// Succeeds when `signature` is a valid `header.alg` signature over `signingInput` by one of
    /// `jwks.candidateKeys(for: header)`.
    ///
    /// Throws `IDTokenError.algorithmNotAllowed` for an algorithm this verifier does not
    /// implement, and `IDTokenError.signatureInvalid` when no candidate key verifies.
    public func verify(signingInput: Data, signature: Data, header: JOSEHeader, jwks: JWKS) throws {
        guard let algorithm = JWSAlgorithm(rawValue: header.alg) else {
            throw IDTokenError.algorithmNotAllowed(header.alg)
        }
        let message = Array(signingInput), signatureBytes = Array(signature)
        for candidate in jwks.candidateKeys(for: header) {
            // An unusable key (wrong curve, weak RSA, pinned to another alg) is simply not a candidate.
            guard let key = try? VerificationKey(jwk: Self.cryptoJWK(candidate)) else { continue }
            do {
                try key.verify(signature: signatureBytes, for: message, algorithm: algorithm)
                return
            } catch {
                continue
            }
        }
        throw IDTokenError.signatureInvalid
    }

    /// The SDK's wire-level JWK as GatehouseCrypto's key description.
    static func cryptoJWK(_ key: GatehouseClient.JWK) -> GatehouseCrypto.JWK {
        GatehouseCrypto.JWK(keyType: key.kty, curve: key.crv, x: key.x, y: key.y, modulus: key.n, exponent: key.e,
                            keyID: key.kid, use: key.use, algorithm: key.alg)
    }
}
