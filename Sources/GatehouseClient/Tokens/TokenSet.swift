import Foundation

/// The tokens an app holds between launches: what `TokenStore`s persist.
public struct TokenSet: Codable, Equatable, Sendable {
    public var accessToken: String
    public var tokenType: String
    /// When the access token stops working, if known.
    public var expiresAt: Date?
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?
    /// The RFC 7638 thumbprint of the DPoP key the tokens are bound to (`token_type` `DPoP`); nil: Bearer.
    /// `AuthState` refreshes only with that same key.
    public var dpopKeyThumbprint: String?
    /// What gets that key back at the next launch (``DPoPKey/keyReference``): the Secure Enclave's handle,
    /// or a software key's private JWK. Kept with the tokens because the tokens are useless without it.
    public var dpopKeyReference: Data?

    public init(accessToken: String, tokenType: String = "Bearer", expiresAt: Date? = nil, refreshToken: String? = nil, idToken: String? = nil,
                scope: String? = nil, dpopKeyThumbprint: String? = nil, dpopKeyReference: Data? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.dpopKeyThumbprint = dpopKeyThumbprint
        self.dpopKeyReference = dpopKeyReference
    }

    /// The set a fresh `response` produces, keeping `previous`'s refresh token, ID token and
    /// scope when the response omits them (RFC 6749 §6: a server need not rotate).
    public init(response: TokenResponse, receivedAt: Date, previous: TokenSet? = nil) {
        self.init(
            accessToken: response.accessToken,
            tokenType: response.tokenType,
            expiresAt: response.expiresIn.map { receivedAt.addingTimeInterval(TimeInterval($0)) },
            refreshToken: response.refreshToken ?? previous?.refreshToken,
            idToken: response.idToken ?? previous?.idToken,
            scope: response.scope ?? previous?.scope,
            dpopKeyThumbprint: previous?.dpopKeyThumbprint,
            dpopKeyReference: previous?.dpopKeyReference
        )
    }

    /// The set `response` produces when the request was proved with `key`: a `DPoP` token type records the
    /// key (its thumbprint and reference) beside the tokens.
    public init(response: TokenResponse, receivedAt: Date, previous: TokenSet? = nil, dpopKey: (any DPoPKey)?) {
        self.init(response: response, receivedAt: receivedAt, previous: previous)
        if let dpopKey, response.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame {
            dpopKeyThumbprint = dpopKey.thumbprint
            dpopKeyReference = dpopKey.keyReference
        }
    }

    /// Whether the access token expires within `margin` seconds of `now` (unknown expiry: no).
    public func expires(within margin: TimeInterval, of now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= margin
    }
}
