/// Why a JWS/JWT, a JWK or a key set was rejected. Each case is distinct so callers (and tests)
/// can react precisely; none of them carries secret material.
public enum JOSEError: Error, Sendable, Equatable {
    /// Not three base64url segments, or a segment decodes to something that is not a JWS part.
    case malformedToken
    /// A segment or key member is not strict base64url (padding, bad characters, bad length).
    case malformedBase64
    /// A header, payload, JWK or JWKS is not the JSON it must be.
    case malformedJSON
    /// The token is longer than the verifier's limit (bytes).
    case tokenTooLarge(limit: Int)
    /// The `alg` is not one this library implements (e.g. `none`, `HS256`).
    case unsupportedAlgorithm(String)
    /// The `alg` is implemented but not in this verifier's allow-list.
    case algorithmNotAllowed(JWSAlgorithm)
    /// The key cannot be used with the token's `alg` (e.g. an RSA key for ES256).
    case keyTypeMismatch
    /// No key in the set matches the token's `kid` (nil: the token has no `kid` and no key fits).
    case unknownKey(kid: String?)
    /// The key set could not be fetched and no cached copy is usable.
    case keySetUnavailable(String)
    /// The header lists `crit` extensions, none of which this library understands.
    case unsupportedCriticalHeader
    /// The signature does not verify.
    case invalidSignature
    /// `exp` has passed (beyond the leeway).
    case expired
    /// `nbf` is in the future (beyond the leeway).
    case notYetValid
    /// `iat` is in the future (beyond the leeway).
    case issuedInFuture
    /// `iss` is not an accepted issuer.
    case wrongIssuer
    /// No `aud` value is an accepted audience.
    case wrongAudience
    /// A required claim is absent.
    case missingClaim(String)
    /// A claim has the wrong JSON type or an impossible value.
    case invalidClaim(String)
    /// A key member is missing or malformed for its `kty`/`crv` (the string names it).
    case invalidKey(String)
    /// The key type or curve is not supported (e.g. `oct`, `P-384`).
    case unsupportedKeyType(String)
    /// The key is too weak to accept (RSA below 2048 bits).
    case weakKey
    /// A private key was required (for signing) but the JWK is public only.
    case notAPrivateKey
    /// The crypto library failed underneath (not the input's fault).
    case crypto(CryptoError)
}
