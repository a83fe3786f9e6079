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

    private static let known: [(OAuthErrorCode, String)] = [
        (.invalidRequest, "invalid_request"), (.invalidClient, "invalid_client"),
        (.invalidGrant, "invalid_grant"), (.unauthorizedClient, "unauthorized_client"),
        (.unsupportedGrantType, "unsupported_grant_type"), (.invalidScope, "invalid_scope"),
        (.accessDenied, "access_denied"), (.unsupportedResponseType, "unsupported_response_type"),
        (.serverError, "server_error"), (.temporarilyUnavailable, "temporarily_unavailable"),
        (.unsupportedTokenType, "unsupported_token_type"), (.interactionRequired, "interaction_required"),
        (.loginRequired, "login_required"), (.consentRequired, "consent_required"),
        (.accountSelectionRequired, "account_selection_required"), (.invalidToken, "invalid_token"),
    ]

    public init(rawValue: String) {
        self = Self.known.first { $0.1 == rawValue }?.0 ?? .other(rawValue)
    }

    public var rawValue: String {
        if case .other(let raw) = self { return raw }
        return Self.known.first { $0.0 == self }!.1
    }
}
