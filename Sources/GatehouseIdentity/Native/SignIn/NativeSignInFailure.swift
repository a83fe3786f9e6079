import Foundation

/// A refused native sign-in (`/native/apple`, `/native/google`, token exchange): the RFC 6749 error the
/// app gets, its HTTP status, and a short reason for the audit log. Nothing was written.
public struct NativeSignInFailure: Error, Sendable, Equatable {
    public let status: Int
    public let error: OAuthError
    public let reason: String

    public init(status: Int, code: OAuthError.Code, description: String, reason: String) {
        self.status = status
        self.error = OAuthError(code, description)
        self.reason = reason
    }

    /// The account rules refused: 409 for an existing account, 403 for a disabled one.
    public init(_ refusal: ExternalSignInRefusal, message: String) {
        let code: OAuthError.Code = switch refusal {
        case .disabled: .accessDenied
        case .accountExists: .accountExists
        case .missingEmail: .missingEmail
        case .unverifiedEmail: .unverifiedEmail
        // Link refusals: a native sign-in never links, so these do not occur here.
        case .sessionChanged, .linkedElsewhere, .accountUnconfirmed: .accessDenied
        }
        self.init(status: refusal.statusCode, code: code, description: message, reason: refusal.reason)
    }

    public var code: OAuthError.Code { error.code }
    public var description: String { error.description }

    /// The token-exchange grant's view: what the token endpoint may say (RFC 8693 §2.2.2), the rest `invalid_grant`.
    public var oauthError: OAuthError {
        switch error.code {
        case .unauthorizedClient, .temporarilyUnavailable, .invalidRequest: error
        default: OAuthError(.invalidGrant, error.description)
        }
    }
}
