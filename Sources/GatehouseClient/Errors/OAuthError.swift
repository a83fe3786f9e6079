import Foundation

/// An error reported by an authorization server, either on the redirect (RFC 6749 §4.1.2.1)
/// or in a token-endpoint JSON body (RFC 6749 §5.2, RFC 7009 §2.2.1).
public struct OAuthError: LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// The `error` code.
    public let code: OAuthErrorCode
    /// `error_description`: human-readable, meant for developers rather than end users.
    public let errorDescription: String?
    /// `error_uri`.
    public let errorURI: URL?
    /// HTTP status of the response that carried the error, when it came over HTTP.
    public let httpStatus: Int?

    public init(code: OAuthErrorCode, description: String? = nil, uri: URL? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.errorDescription = description
        self.errorURI = uri
        self.httpStatus = httpStatus
    }

    /// Parses an RFC 6749 §5.2 JSON body; `nil` when the body has no string `error` member.
    public init?(jsonBody: Data, httpStatus: Int?) {
        guard let object = try? JSONSerialization.jsonObject(with: jsonBody) as? [String: Any],
              let code = object["error"] as? String else { return nil }
        self.init(
            code: OAuthErrorCode(rawValue: code),
            description: object["error_description"] as? String,
            uri: (object["error_uri"] as? String).flatMap(URL.init(string:)),
            httpStatus: httpStatus
        )
    }

    public var description: String {
        "OAuthError(\(code.rawValue)\(errorDescription.map { ": \($0)" } ?? ""))"
    }
}
/// The registered OAuth error codes (RFC 6749, RFC 7009, OIDC Core §3.1.2.6), and `other`
/// for anything a provider invents.
public enum OAuthErrorCode: Equatable, Hashable, Sendable, RawRepresentable {
    case invalidRequest
    case invalidClient
    case invalidGrant
    case unauthorizedClient
    case unsupportedGrantType
    case invalidScope
    case accessDenied
    case unsupportedResponseType
    case serverError
    case temporarilyUnavailable
    case unsupportedTokenType
    case interactionRequired
    case loginRequired
    case consentRequired
    case accountSelectionRequired
    case invalidToken
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "invalid_request": self = .invalidRequest
        case "invalid_client": self = .invalidClient
        case "invalid_grant": self = .invalidGrant
        case "unauthorized_client": self = .unauthorizedClient
        case "unsupported_grant_type": self = .unsupportedGrantType
        case "invalid_scope": self = .invalidScope
        case "access_denied": self = .accessDenied
        case "unsupported_response_type": self = .unsupportedResponseType
        case "server_error": self = .serverError
        case "temporarily_unavailable": self = .temporarilyUnavailable
        case "unsupported_token_type": self = .unsupportedTokenType
        case "interaction_required": self = .interactionRequired
        case "login_required": self = .loginRequired
        case "consent_required": self = .consentRequired
        case "account_selection_required": self = .accountSelectionRequired
        case "invalid_token": self = .invalidToken
        default: self = .other(rawValue)
        }
    }

    // A switch, not a table lookup with `==`: for a RawRepresentable type `==` may resolve to
    // the standard library's rawValue comparison, which would recurse forever.
    public var rawValue: String {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidClient: "invalid_client"
        case .invalidGrant: "invalid_grant"
        case .unauthorizedClient: "unauthorized_client"
        case .unsupportedGrantType: "unsupported_grant_type"
        case .invalidScope: "invalid_scope"
        case .accessDenied: "access_denied"
        case .unsupportedResponseType: "unsupported_response_type"
        case .serverError: "server_error"
        case .temporarilyUnavailable: "temporarily_unavailable"
        case .unsupportedTokenType: "unsupported_token_type"
        case .interactionRequired: "interaction_required"
        case .loginRequired: "login_required"
        case .consentRequired: "consent_required"
        case .accountSelectionRequired: "account_selection_required"
        case .invalidToken: "invalid_token"
        case .other(let raw): raw
        }
    }
}
