/// The check a provider's signed answer (an ID token, a notification, a code redemption) failed, as a
/// typed value so callers switch on it instead of comparing strings; ``reason`` is its audit-log spelling.
public enum TokenCheck: Sendable, Equatable {
    /// The token endpoint's answer carried no `id_token`.
    case noIDToken
    /// userinfo's `sub` differs from the ID token's.
    case userinfoSubject
    /// The `sub` claim is missing or empty.
    case subject
    case expired
    case audience
    case issuer
    /// No key in the provider's JWKS has the token's `kid`.
    case unknownKey
    case signature
    /// Not valid yet, or issued in the future.
    case time
    /// A required claim is absent (its name).
    case missingClaim(String)
    case algorithm
    /// Not a JWS, oversized, or undecodable.
    case malformed
    /// Google: `azp` is not one of the app's client ids.
    case authorizedParty
    /// Decoded, but the claims are not what this token type carries.
    case claims
    /// The redeemed code's ID token names another subject than the one already verified.
    case codeSubject
    /// A notification issued too long ago.
    case stale
    /// An Apple notification's `events` claim is missing or malformed.
    case events

    /// How the audit log names it (stable: log searches rely on it).
    public var reason: String {
        switch self {
        case .noIDToken: "no_id_token"
        case .userinfoSubject: "userinfo_sub"
        case .subject: "sub"
        case .expired: "expired"
        case .audience: "audience"
        case .issuer: "issuer"
        case .unknownKey: "unknown_key"
        case .signature: "signature"
        case .time: "time"
        case .missingClaim(let name): "missing_\(name)"
        case .algorithm: "algorithm"
        case .malformed: "malformed"
        case .authorizedParty: "azp"
        case .claims: "claims"
        case .codeSubject: "code_subject"
        case .stale: "stale"
        case .events: "events"
        }
    }
}
