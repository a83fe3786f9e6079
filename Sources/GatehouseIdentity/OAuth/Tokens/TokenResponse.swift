/// The JSON a successful token request answers with (RFC 6749 §5.1, OIDC Core §3.1.3.3).
public struct TokenResponse: Sendable, Equatable, Encodable {
    public let accessToken: String
    public let tokenType = "Bearer"
    public let expiresIn: Int
    public let refreshToken: String?
    public let idToken: String?
    public let scope: String
    /// RFC 8693 token exchange answers name the token type they issued.
    public let issuedTokenType: String?

    public init(accessToken: String, expiresIn: Int, refreshToken: String?, idToken: String?, scope: String,
                issuedTokenType: String? = nil) {
        self.accessToken = accessToken; self.expiresIn = expiresIn; self.refreshToken = refreshToken
        self.idToken = idToken; self.scope = scope; self.issuedTokenType = issuedTokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case refreshToken = "refresh_token", idToken = "id_token", scope, issuedTokenType = "issued_token_type"
    }
}
