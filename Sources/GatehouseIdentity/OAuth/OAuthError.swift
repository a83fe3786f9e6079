/// An OAuth 2.0 error (RFC 6749 §4.1.2.1 and §5.2, RFC 7009, OIDC Core §3.1.2.6).
public struct OAuthError: Error, Sendable, Equatable {
    public enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case serverError = "server_error"
        case temporarilyUnavailable = "temporarily_unavailable"
        case loginRequired = "login_required"
        case consentRequired = "consent_required"
        case interactionRequired = "interaction_required"
        case invalidToken = "invalid_token"
        case unsupportedTokenType = "unsupported_token_type"
        case slowDown = "slow_down"
        /// RFC 6750 §3.1: a valid token without the scope the resource needs (403).
        case insufficientScope = "insufficient_scope"
        /// RFC 9449 §5: the DPoP proof is missing, malformed, replayed or does not match the request.
        case invalidDPoPProof = "invalid_dpop_proof"
        /// RFC 9449 §8: the proof must carry the nonce the server sends in `DPoP-Nonce`.
        case useDPoPNonce = "use_dpop_nonce"
        /// RFC 8707 §2: the `resource` is not an API registered with this server.
        case invalidTarget = "invalid_target"
        // Gatehouse's extension codes (RFC 6749 §8.5), answered by the native sign-in endpoints.
        /// The provider the app asked for is not enabled on this server.
        case unsupportedProvider = "unsupported_provider"
        /// An account with the provider's address exists and is not linked automatically.
        case accountExists = "account_exists"
        /// The provider shared no email address, which a new account needs.
        case missingEmail = "missing_email"
        /// The provider's address is not verified there.
        case unverifiedEmail = "unverified_email"
    }

    public let code: Code
    public let description: String
    /// Seconds to wait, for rate-limited password grants.
    public let retryAfter: Int?

    public init(_ code: Code, _ description: String, retryAfter: Int? = nil) {
        self.code = code; self.description = description; self.retryAfter = retryAfter
    }

    /// The HTTP status for a token-endpoint answer (RFC 6749 §5.2: 400, or 401 for client authentication).
    public var status: Int {
        switch code {
        case .invalidClient: 401
        case .invalidToken: 401
        case .insufficientScope: 403
        case .serverError: 500
        case .temporarilyUnavailable, .slowDown: retryAfter == nil ? 503 : 429
        default: 400
        }
    }

    public static func invalidRequest(_ description: String) -> OAuthError { OAuthError(.invalidRequest, description) }
    public static func invalidGrant(_ description: String) -> OAuthError { OAuthError(.invalidGrant, description) }
    public static func invalidClient(_ description: String) -> OAuthError { OAuthError(.invalidClient, description) }
}
