import Foundation
import GatehouseCrypto
import GatehouseStore

/// The token endpoint's logic: authenticates the client, dispatches to the grant, and answers
/// RFC 6749 errors. One grant per file (`Grants/`), each seeing only the storage it needs.
public struct TokenService: Sendable {
    public let registry: ClientRegistry
    public let issuer: TokenIssuer
    public let revocation: TokenRevocation
    public let validator: AccessTokenValidator
    let authorizationCode: AuthorizationCodeGrant
    let refresh: RefreshTokenGrant
    let password: PasswordGrant
    let clientCredentials: ClientCredentialsGrant
    let refreshTokens: any RefreshTokenStore
    let users: any UserStore
    /// Verifies third-party ID tokens for the token-exchange grant; the server sets it (nil: grant refused).
    public var externalIDTokens: (any ExternalIDTokenResolver)?

    public init(database: any GatehouseDatabase, settings: OAuthSettings, keys: SigningKeyRing, accounts: AccountService,
                audit: AuditTrail, clock: IdentityClock = .system) {
        registry = ClientRegistry(store: database.oauthClients, clock: clock)
        issuer = TokenIssuer(settings: settings, keys: keys, refreshTokens: database.refreshTokens, clock: clock)
        revocation = TokenRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                     settings: settings, clock: clock)
        validator = AccessTokenValidator(settings: settings, keys: keys, revoked: database.revokedAccessTokens, clock: clock)
        authorizationCode = AuthorizationCodeGrant(codes: database.authorizationCodes, users: database.users, issuer: issuer,
                                                   revocation: revocation, clock: clock)
        refresh = RefreshTokenGrant(refreshTokens: database.refreshTokens, users: database.users, issuer: issuer,
                                    revocation: revocation, clock: clock)
        password = PasswordGrant(accounts: accounts, issuer: issuer, audit: audit)
        clientCredentials = ClientCredentialsGrant(issuer: issuer)
        refreshTokens = database.refreshTokens
        users = database.users
    }

    /// Handles a token request whose parameters were each sent once.
    public func token(parameters: [String: String], credentials: ClientCredentials, context: ClientContext) async throws -> TokenResponse {
        let grantType = parameters["grant_type"] ?? ""
        guard !grantType.isEmpty else { throw OAuthError.invalidRequest("The grant_type parameter is missing.") }
        let client = try await registry.authenticate(credentials)
        let request = TokenRequest(client: client, parameters: parameters, context: context)
        switch grantType {
        case "authorization_code": return try await authorizationCode.exchange(request)
        case "refresh_token": return try await refresh.exchange(request)
        case "password": return try await password.exchange(request)
        case "client_credentials": return try await clientCredentials.exchange(request)
        case TokenExchangeGrant.grantType: return try await TokenExchangeGrant(resolver: externalIDTokens, issuer: issuer).exchange(request)
        default: throw OAuthError(.unsupportedGrantType, "The grant type \(grantType) is not supported.")
        }
    }

    /// RFC 7009: revokes a refresh token (its whole family) or an access token the client holds.
    /// Unknown tokens, or tokens of other clients, are silently ignored, as the RFC requires.
    public func revoke(token: String, hint: String?, credentials: ClientCredentials) async throws {
        let client = try await registry.authenticate(credentials)
        if hint != "access_token", let stored = try await refreshTokens.find(hash: TokenHash(SHA256.hash(token))) {
            if stored.clientId == client.id { try await revocation.revokeFamily(stored.familyId) }
            return
        }
        if let claims = try await validator.validate(token), claims.clientID == client.id {
            try await revocation.revokeAccessToken(jti: claims.jti, expiresAt: claims.expiresAt)
        }
    }

    /// RFC 7662 introspection, for confidential clients (resource servers).
    public func introspect(token: String, hint: String?, credentials: ClientCredentials) async throws -> [String: JSONValue] {
        let client = try await registry.authenticate(credentials)
        guard client.kind == .confidential else {
            throw OAuthError(.unauthorizedClient, "Only confidential clients may introspect tokens.")
        }
        let now = Date()
        if hint != "refresh_token", let claims = try await validator.validate(token) {
            return ["active": .bool(true), "token_type": .string("access_token"), "scope": .string(claims.scope.description),
                    "client_id": .string(claims.clientID), "sub": .string(claims.subject), "jti": .string(claims.jti),
                    "iss": .string(issuer.settings.issuer), "aud": .string(claims.audience),
                    "exp": .integer(Int64(claims.expiresAt.timeIntervalSince1970)),
                    "iat": .integer(Int64(claims.issuedAt.timeIntervalSince1970))]
        }
        if let stored = try await refreshTokens.find(hash: TokenHash(SHA256.hash(token))),
           stored.revokedAt == nil, stored.rotatedAt == nil, stored.expiresAt > now, stored.clientId == client.id {
            return ["active": .bool(true), "token_type": .string("refresh_token"), "scope": .string(stored.scope),
                    "client_id": .string(stored.clientId), "sub": .string(stored.userId),
                    "exp": .integer(Int64(stored.expiresAt.timeIntervalSince1970)),
                    "iat": .integer(Int64(stored.createdAt.timeIntervalSince1970))]
        }
        return ["active": .bool(false)]
    }

    /// The OpenID Connect userinfo claims for a valid access token with the `openid` scope; a valid
    /// token without it is `insufficient_scope` (RFC 6750 §3.1), not `invalid_token`.
    public func userInfo(accessToken: String) async throws -> [String: JSONValue] {
        guard let claims = try await validator.validate(accessToken) else {
            throw OAuthError(.invalidToken, "The access token is invalid, expired or revoked.")
        }
        guard claims.scope.contains(Scope.openID) else {
            throw OAuthError(.insufficientScope, "The access token was not issued with the openid scope.")
        }
        guard let user = try await users.find(id: claims.subject), !user.disabled else {
            throw OAuthError(.invalidToken, "The account is not available.")
        }
        var result = UserClaims.claims(for: user, scope: claims.scope)
        result["sub"] = .string(user.id)
        return result
    }
}
