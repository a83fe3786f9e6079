/// The JWS algorithms this library implements (RFC 7518 §3, RFC 8037 §3.1).
///
/// There is deliberately no `none` and no HMAC case: a token naming them cannot even be
/// represented, so "alg: none" and "HS256 with the public key as secret" fail by construction.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// ECDSA on P-256 with SHA-256; signatures are raw `r ‖ s` (64 bytes).
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (verification only: what Apple and Google sign with).
    case rs256 = "RS256"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (verification only).
    case ps256 = "PS256"
    /// Ed25519 (RFC 8037).
    case edDSA = "EdDSA"

    /// The kind of key this algorithm needs.
    public var keyKind: KeyKind {
        switch self {
        case .es256: .ecP256
        case .rs256, .ps256: .rsa
        case .edDSA: .ed25519
        }
    }
}

/// The key families this library handles.
public enum KeyKind: String, Sendable, Hashable {
    case ecP256, rsa, ed25519
}
