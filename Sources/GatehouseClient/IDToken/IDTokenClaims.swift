import Foundation

/// The claims of a validated ID token (OIDC Core §2). Provider-specific claims (`email`,
/// Apple's `is_private_email`, Google's `hd`) are in `all`.
public struct IDTokenClaims: Equatable, Sendable {
    public let issuer: String
    public let subject: String
    /// `aud`, normalized to an array (it may be a string or an array on the wire).
    public let audience: [String]
    public let expiresAt: Date
    public let issuedAt: Date
    public let nonce: String?
    /// `azp`, required when there are several audiences.
    public let authorizedParty: String?
    /// Every claim as sent.
    public let all: [String: JSONValue]

    /// `email`, if present.
    public var email: String? { all["email"]?.stringValue }
    /// `email_verified`, accepting Apple's `"true"`/`"false"` strings.
    public var emailVerified: Bool? { all["email_verified"]?.boolValue }

    /// Reads the registered claims from a JSON payload; throws `IDTokenError.missingClaim`.
    public init(payload: Data) throws {
        guard let all = try? JSONDecoder().decode([String: JSONValue].self, from: payload) else { throw IDTokenError.malformed }
        func string(_ name: String) throws -> String {
            guard let value = all[name]?.stringValue else { throw IDTokenError.missingClaim(name) }
            return value
        }
        func date(_ name: String) throws -> Date {
            guard let value = all[name]?.numberValue else { throw IDTokenError.missingClaim(name) }
            return Date(timeIntervalSince1970: value)
        }
        issuer = try string("iss")
        subject = try string("sub")
        switch all["aud"] {
        case .string(let single): audience = [single]
        case .array(let values):
            let strings = values.compactMap(\.stringValue)
            guard strings.count == values.count, !strings.isEmpty else { throw IDTokenError.missingClaim("aud") }
            audience = strings
        default: throw IDTokenError.missingClaim("aud")
        }
        expiresAt = try date("exp")
        issuedAt = try date("iat")
        nonce = all["nonce"]?.stringValue
        authorizedParty = all["azp"]?.stringValue
        self.all = all
    }
}

/// Why an ID token was rejected.
public enum IDTokenError: Error, Equatable, Sendable {
    /// Not three base64url parts with a JSON header and payload.
    case malformed
    /// `alg` is `none` or outside the allowed set.
    case algorithmNotAllowed(String)
    /// No verifier was configured and the caller did not choose `.trustTokenEndpointTLS`.
    case noSignatureVerifier
    /// The signature does not verify with any candidate key.
    case signatureInvalid
    /// A required claim is missing or has the wrong type.
    case missingClaim(String)
    case issuerMismatch(expected: String, actual: String)
    /// `aud` does not contain the client id.
    case audienceMismatch
    /// `azp` is missing with several audiences, or is not the client id.
    case authorizedPartyMismatch
    case expired
    /// `iat` is in the future beyond the leeway.
    case issuedInFuture
    case nonceMissing
    case nonceMismatch
}
