import Foundation

/// The key a client proves possession of with DPoP (RFC 9449). Gatehouse binds the tokens it issues to
/// this key, so a token copied off the device (a backup, a keychain dump) is refused without it.
///
/// On Apple platforms `GatehouseClientApple`'s `SecureEnclaveDPoPKey` keeps the private key in the Secure
/// Enclave, where it cannot be exported; `GatehouseClientOpenSSL`'s `SoftwareDPoPKey` is a P-256 key in
/// memory (Linux, tests). Give the key to `OAuthClient(…, dpopKey:)`.
public protocol DPoPKey: Sendable {
    /// What to keep beside the tokens to get this key back at the next launch (the Secure Enclave's
    /// opaque handle; a software key's private JWK). `AuthState` stores it in the ``TokenSet``.
    var keyReference: Data { get }
    /// The JWS `alg` of the proofs, e.g. `ES256`.
    var algorithm: String { get }
    /// The public key as JWK members (`kty`, `crv`, `x`, `y` for P-256): the proofs' `jwk` header.
    var publicJWK: [String: String] { get }
    /// Signs a JWS signing input; for `ES256` the raw 64-byte `r ‖ s` (RFC 7518 §3.4), not DER.
    func sign(_ signingInput: [UInt8]) throws -> [UInt8]
}

extension DPoPKey {
    /// The RFC 7638 thumbprint: what a bound token's `cnf.jkt` names.
    public var thumbprint: String {
        let required: [String] = publicJWK["kty"] == "RSA" ? ["e", "kty", "n"]
            : publicJWK["kty"] == "OKP" ? ["crv", "kty", "x"] : ["crv", "kty", "x", "y"]
        let members = required.map { "\"\($0)\":\"\(publicJWK[$0] ?? "")\"" }.joined(separator: ",")
        return Base64URL.encode(SHA256.hash(Array("{\(members)}".utf8)))
    }
}
