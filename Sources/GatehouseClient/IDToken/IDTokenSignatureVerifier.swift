import Foundation

/// Checks a JWS signature. Foundation has no public-key crypto on Linux, so the SDK asks for
/// one: `AppleIDTokenSignatureVerifier` on Apple platforms, and on Linux whatever the caller
/// injects (the Gatehouse CLI uses one backed by OpenSSL).
///
/// The SDK has already rejected `alg: none` and algorithms outside the allowed list before
/// calling this, and fetched `jwks` from the provider's `jwks_uri`.
public protocol IDTokenSignatureVerifier: Sendable {
    /// Throws (any error; `IDTokenError.signatureInvalid` is conventional) unless `signature`
    /// is a valid `header.alg` signature over `signingInput` by a key in `jwks`
    /// (`jwks.candidateKeys(for: header)` picks the keys to try).
    func verify(signingInput: Data, signature: Data, header: JOSEHeader, jwks: JWKS) throws
}

/// How an ID token's signature is established.
public enum IDTokenSignatureCheck: Sendable {
    /// Verify with `verifier` against `jwks`.
    case verify(any IDTokenSignatureVerifier, jwks: JWKS)
    /// Skip the signature: allowed by OIDC Core §3.1.3.7 (6) *only* for an ID token received
    /// directly from the token endpoint over TLS in the code flow, where TLS authenticates the
    /// issuer. Never use it for an ID token that came through the app or the browser (Apple's
    /// native identity token, a token from the callback URL).
    case trustTokenEndpointTLS
}
