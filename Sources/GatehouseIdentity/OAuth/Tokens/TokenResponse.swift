import GatehouseCrypto

/// The JSON a successful token request answers with (RFC 6749 §5.1, OIDC Core §3.1.3.3).
public struct TokenResponse: Sendable, Equatable, Encodable {
    public let accessToken: String
    /// `Bearer`, or `DPoP` for an access token bound to a DPoP key (RFC 9449 §5).
    public let tokenType: String
    public let expiresIn: Int
    public let refreshToken: String?
    public let idToken: String?
    public let scope: String
    /// RFC 8693 token exchange answers name the token type they issued.
    public let issuedTokenType: String?

    public init(accessToken: String, expiresIn: Int, refreshToken: String?, idToken: String?, scope: String,
                issuedTokenType: String? = nil, tokenType: String = "Bearer") {
        self.tokenType = tokenType
        self.accessToken = accessToken; self.expiresIn = expiresIn; self.refreshToken = refreshToken
        self.idToken = idToken; self.scope = scope; self.issuedTokenType = issuedTokenType
    }

    /// The answer as a JSON object, for GatehouseCrypto's writer (Foundation's `JSONEncoder` was a
    /// tenth of a refresh's CPU); the same members as the `Encodable` form, absent ones left out.
    public var jsonObject: [String: JSONValue] {
        var object: [String: JSONValue] = ["access_token": .string(accessToken), "token_type": .string(tokenType),
                                           "expires_in": .integer(Int64(expiresIn)), "scope": .string(scope)]
        if let refreshToken { object["refresh_token"] = .string(refreshToken) }
        if let idToken { object["id_token"] = .string(idToken) }
        if let issuedTokenType { object["issued_token_type"] = .string(issuedTokenType) }
        return object
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in"
        case refreshToken = "refresh_token", idToken = "id_token", scope, issuedTokenType = "issued_token_type"
    }
}
