import GatehouseIdentity

/// A refused native sign-in (`/native/apple`, `/native/google`, token exchange): the RFC 6749 error the
/// app gets, its HTTP status, and a short reason for the audit log. Nothing was written.
struct NativeSignInFailure: Error, Sendable, Equatable {
    let status: Int
    let error: OAuthError
    let reason: String

    init(status: Int, code: OAuthError.Code, description: String, reason: String) {
        self.status = status
        self.error = OAuthError(code, description)
        self.reason = reason
    }

    /// The account rules refused: 409 for an existing account, 403 for a disabled one.
    init(_ refusal: ExternalSignInRefusal, message: String) {
        let code: OAuthError.Code = switch refusal {
        case .disabled: .accessDenied
        case .accountExists: .accountExists
        case .missingEmail: .missingEmail
        case .unverifiedEmail: .unverifiedEmail
        // Link refusals: a native sign-in never links, so these do not occur here.
        case .sessionChanged, .linkedElsewhere, .accountUnconfirmed: .accessDenied
        }
        self.init(status: refusal.status.code, code: code, description: message, reason: refusal.reason)
    }

    var code: OAuthError.Code { error.code }
    var description: String { error.description }

    /// The token-exchange grant's view: what the token endpoint may say (RFC 8693 §2.2.2), the rest `invalid_grant`.
    var oauthError: OAuthError {
        switch error.code {
        case .unauthorizedClient, .temporarilyUnavailable, .invalidRequest: error
        default: OAuthError(.invalidGrant, error.description)
        }
    }
}
