import Foundation

/// A successful token-endpoint response (RFC 6749 §5.1, OIDC Core §3.1.3.3).
public struct TokenResponse: Codable, Equatable, Sendable {
    public var accessToken: String
    public var tokenType: String
    /// Lifetime in seconds, when the server says.
    public var expiresIn: Int?
    /// Present on first issue and, with rotation, on every refresh.
    public var refreshToken: String?
    /// OpenID Connect ID token (a JWT), when `openid` was requested.
    public var idToken: String?
    /// Granted scopes, space-separated, when they differ from those requested (or always, for some servers).
    public var scope: String?

    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: String? = nil, idToken: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        // GitHub says "bearer"; some servers omit it. Bearer is the only type this SDK sends.
        tokenType = try container.decodeIfPresent(String.self, forKey: .tokenType) ?? "Bearer"
        // Some servers send expires_in as a string.
        if let seconds = try? container.decodeIfPresent(Int.self, forKey: .expiresIn) {
            expiresIn = seconds
        } else {
            expiresIn = (try? container.decodeIfPresent(String.self, forKey: .expiresIn)).flatMap { $0.flatMap(Int.init) }
        }
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
    }
}
