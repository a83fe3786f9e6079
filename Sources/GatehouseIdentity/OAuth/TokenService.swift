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
    /// DPoP proofs of token and resource requests (RFC 9449), their `jti`s in the shared store.
    public let dpop: DPoPVerifier
    let authorizationCode: AuthorizationCodeGrant
    let refresh: RefreshTokenGrant
    let password: PasswordGrant
    let clientCredentials: ClientCredentialsGrant
    let refreshTokens: any RefreshTokenStore
    let users: any UserStore
    let hotReads: any HotReadStore
    /// Verifies third-party ID tokens for the token-exchange grant (nil: the grant is refused).
    public let externalIDTokens: (any ExternalIDTokenResolver)?

    /// The stores the grants, revocation and validation call, named one by one.
    public struct Stores: Sendable {
        let flowStates: any FlowStateStore
        let oauthClients: any OAuthClientStore
        let refreshTokens: any RefreshTokenStore
        let revokedAccessTokens: any RevokedAccessTokenStore
        let authorizationCodes: any AuthorizationCodeStore
        let consents: any ConsentStore
        let userImports: any UserImportStore
        let users: any UserStore
        let sessions: any SessionStore
        let hotReads: any HotReadStore

        /// Those stores of `database`.
        public init(database: any GatehouseDatabase) {
            flowStates = database.flowStates; oauthClients = database.oauthClients; refreshTokens = database.refreshTokens
            revokedAccessTokens = database.revokedAccessTokens; authorizationCodes = database.authorizationCodes
            consents = database.consents; userImports = database.userImports; users = database.users
            sessions = database.sessions; hotReads = database.hotReads
        }
    }

    /// - Parameters:
    ///   - successorKey: the key refresh-token successors are derived with (the same in every process).
    ///   - registry: the client registry to share (the native sign-ins look apps up in the same one); a new one by default.
    ///   - externalIDTokens: the token-exchange grant's ID-token verifier, given at construction so there is one
    ///     complete token service, never a copy configured afterwards.
    ///   - dpopNonceKey: the key DPoP nonces are made with (the same in every process).
    public init(stores database: Stores, settings: OAuthSettings, keys: SigningKeyRing, accounts: AccountService,
                audit: AuditTrail, clock: IdentityClock = .system, successorKey: [UInt8] = SecureRandom.bytes(32),
                sids: SessionIdentifier? = nil, registry: ClientRegistry? = nil,
                externalIDTokens: (any ExternalIDTokenResolver)? = nil, dpopNonceKey: [UInt8] = SecureRandom.bytes(32)) {
        dpop = DPoPVerifier(replays: database.flowStates, nonces: DPoPNonces(key: dpopNonceKey, clock: clock),
                            nonceRequired: settings.dpopNonceRequired, clock: clock)
        self.registry = registry ?? ClientRegistry(store: database.oauthClients, clock: clock)
        self.externalIDTokens = externalIDTokens
        var issuer = TokenIssuer(settings: settings, keys: keys, refreshTokens: database.refreshTokens, clock: clock,
                                 successorKey: successorKey, consents: database.consents)
        issuer.sids = sids
        issuer.productUserIds = database.userImports
        self.issuer = issuer
        revocation = TokenRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                     settings: settings, clock: clock)
        validator = AccessTokenValidator(settings: settings, keys: keys, revoked: database.revokedAccessTokens, clock: clock)
        authorizationCode = AuthorizationCodeGrant(codes: database.authorizationCodes, users: database.users, issuer: issuer,
                                                   revocation: revocation, clock: clock)
        refresh = RefreshTokenGrant(refreshTokens: database.refreshTokens, issuer: issuer,
                                    revocation: revocation, clock: clock, sessions: database.sessions)
        password = PasswordGrant(accounts: accounts, issuer: issuer, audit: audit)
        clientCredentials = ClientCredentialsGrant(issuer: issuer)
        refreshTokens = database.refreshTokens
        users = database.users
        hotReads = database.hotReads
    }

    /// Handles a token request whose parameters were each sent once; `proof` is its DPoP proof, already
    /// verified by ``dpop`` (the tokens are then bound to its key).
    public func token(parameters: [String: String], credentials: ClientCredentials, context: ClientContext,
                      proof: DPoPProof? = nil) async throws -> TokenResponse {
        let grantType = parameters["grant_type"] ?? ""
        guard !grantType.isEmpty else { throw OAuthError.invalidRequest("The grant_type parameter is missing.") }
        let client = try await registry.authenticate(credentials)
        if proof == nil, client.requiresDPoP {
            throw OAuthError(.invalidDPoPProof, "This client must send a DPoP proof with every token request.")
        }
        var request = TokenRequest(client: client, parameters: parameters, context: context, proof: proof)
        request.resource = try issuer.settings.resource(parameters["resource"])
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
    /// `token_type_hint` only orders the look-ups (RFC 7009 §2.1): on a miss the other type is tried.
    /// `proof` is the request's verified DPoP proof: a public client (which cannot authenticate) revokes a
    /// DPoP-bound token only with a proof of the key it is bound to, so a copied token cannot sign its owner
    /// out; to anyone else the token is ignored as if unknown. A confidential client's secret suffices.
    public func revoke(token: String, hint: String?, credentials: ClientCredentials, proof: DPoPProof? = nil) async throws {
        let client = try await registry.authenticate(credentials)
        func holds(_ owner: String, boundTo jkt: String?) -> Bool {
            guard owner == client.id else { return false }
            guard let jkt, client.kind == .public else { return true }
            return proof.map { ConstantTime.equals($0.thumbprint, jkt) } ?? false
        }
        for kind in Self.lookupOrder(hint) {
            switch kind {
            case .refreshToken:
                if let hash = issuer.refreshValue(token).hash, let stored = try await refreshTokens.find(hash: hash) {
                    if holds(stored.clientId, boundTo: stored.dpopJKT) { try await revocation.revokeFamily(stored.familyId) }
                    return
                }
            case .accessToken:
                if let claims = try await validator.validate(token) {
                    if holds(claims.clientID, boundTo: claims.confirmationJKT) {
                        try await revocation.revokeAccessToken(jti: claims.jti, expiresAt: claims.expiresAt)
                    }
                    return
                }
            }
        }
    }

    /// RFC 7662 introspection, for confidential clients (resource servers). A client learns about the
    /// tokens issued to itself only, unless it is registered to introspect any token (`introspect_any`,
    /// a resource server); every other token is `{"active": false}`, as if unknown.
    /// `token_type_hint` only orders the look-ups (RFC 7662 §2.1).
    public func introspect(token: String, hint: String?, credentials: ClientCredentials) async throws -> [String: JSONValue] {
        let client = try await registry.authenticate(credentials)
        guard client.kind == .confidential else {
            throw OAuthError(.unauthorizedClient, "Only confidential clients may introspect tokens.")
        }
        let now = issuer.clock.now()
        func visible(_ owner: String) -> Bool { owner == client.id || client.mayIntrospectAnyToken }
        for kind in Self.lookupOrder(hint) {
            switch kind {
            case .accessToken:
                if let claims = try await activeAccessToken(token) {
                    guard visible(claims.clientID) else { return ["active": .bool(false)] }
                    // RFC 7662 §2.2: `token_type` as the token endpoint named it (RFC 6749 §5.1, RFC 9449 §5).
                    var answer: [String: JSONValue] = ["active": .bool(true), "token_type": .string(claims.confirmationJKT == nil ? "Bearer" : "DPoP"), "scope": .string(claims.scope.description),
                            "client_id": .string(claims.clientID), "sub": .string(claims.subject), "jti": .string(claims.jti),
                            "iss": .string(issuer.settings.issuer), "aud": .string(claims.audience),
                            "exp": .integer(Int64(claims.expiresAt.timeIntervalSince1970)),
                            "iat": .integer(Int64(claims.issuedAt.timeIntervalSince1970))]
                    // RFC 9449 §6.2: the resource server learns which key the token is bound to.
                    if let jkt = claims.confirmationJKT { answer["cnf"] = .object(["jkt": .string(jkt)]) }
                    return answer
                }
            case .refreshToken:
                let presented = issuer.refreshValue(token)
                if let hash = presented.hash, let stored = try await refreshTokens.find(hash: hash) {
                    // A family token is active only at the family's current generation (older ones were rotated).
                    guard stored.revokedAt == nil, stored.rotatedAt == nil, stored.generation == presented.generation,
                          stored.expiresAt > now, visible(stored.clientId),
                          let user = try await users.find(id: stored.userId), !user.disabled else {
                        return ["active": .bool(false)]
                    }
                    var answer: [String: JSONValue] = ["active": .bool(true), "token_type": .string("refresh_token"), "scope": .string(stored.scope),
                            "client_id": .string(stored.clientId), "sub": .string(stored.userId),
                            "exp": .integer(Int64(stored.expiresAt.timeIntervalSince1970)),
                            "iat": .integer(Int64(stored.createdAt.timeIntervalSince1970))]
                    if let jkt = stored.dpopJKT { answer["cnf"] = .object(["jkt": .string(jkt)]) }
                    return answer
                }
            }
        }
        return ["active": .bool(false)]
    }

    /// An access token introspection calls active: valid and unrevoked, and — for a user's token — its user's
    /// standing read with the revocation check, as userinfo does (``AccessTokenValidator/userRefuses(_:_:)``).
    func activeAccessToken(_ token: String) async throws -> AccessTokenClaims? {
        guard let claims = try await validator.verifiedUnexpired(token) else { return nil }
        let keys = AccessTokenValidator.revocationKeys(claims)
        if claims.isClientCredentials { return try await validator.revoked.isAnyRevoked(keys) ? nil : claims }
        let subject = try await hotReads.bearerSubject(userId: claims.subject, revocationKeys: keys)
        return subject.revoked || AccessTokenValidator.userRefuses(claims, subject) ? nil : claims
    }

    enum TokenKind { case accessToken, refreshToken }

    /// The hinted type first, then the other; an unknown hint is ignored (RFC 7009 §2.1 lets the server
    /// extend its search, so no `unsupported_token_type` for it).
    static func lookupOrder(_ hint: String?) -> [TokenKind] {
        hint == "refresh_token" ? [.refreshToken, .accessToken] : [.accessToken, .refreshToken]
    }

    /// The OpenID Connect userinfo claims for a valid access token with the `openid` scope; a valid
    /// token without it is `insufficient_scope` (RFC 6750 §3.1), not `invalid_token`.
    /// The revocation check and the user are one statement (`HotReadStore.bearerSubject`), read on every call.
    /// `proof` is the request's DPoP proof (verified by ``dpop`` with the token's `ath`), sent with
    /// `Authorization: DPoP`: a token bound to a key needs a proof made with it, and a Bearer token none
    /// (RFC 9449 §7: a bound token presented as Bearer is refused, so stripping the proof gains nothing).
    public func userInfo(accessToken: String, proof: DPoPProof? = nil) async throws -> [String: JSONValue] {
        let invalid = OAuthError(.invalidToken, "The access token is invalid, expired or revoked.")
        guard let claims = try await validator.verifiedUnexpired(accessToken) else { throw invalid }
        switch (claims.confirmationJKT, proof) {
        case (nil, nil): break
        case (let jkt?, let proof?) where ConstantTime.equals(jkt, proof.thumbprint): break
        case (_?, nil): throw OAuthError(.invalidToken, "The access token is bound to a DPoP key; use Authorization: DPoP with a proof.")
        case (_?, _?): throw OAuthError(.invalidDPoPProof, "The DPoP proof is made with another key than the token is bound to.")
        case (nil, _?): throw OAuthError(.invalidToken, "The access token is not DPoP-bound; use Authorization: Bearer.")
        }
        let subject = try await hotReads.bearerSubject(userId: claims.subject,
                                                       revocationKeys: AccessTokenValidator.revocationKeys(claims))
        guard !subject.revoked else { throw invalid }
        guard claims.scope.contains(Scope.openID) else {
            throw OAuthError(.insufficientScope, "The access token was not issued with the openid scope.")
        }
        guard !claims.isClientCredentials, let user = subject.user, !AccessTokenValidator.userRefuses(claims, subject) else {
            throw OAuthError(.invalidToken, "The account is not available.")
        }
        var result = UserClaims.claims(for: user, scope: claims.scope)
        result["sub"] = .string(user.id)
        // Read in the same statement; released where the issuer releases it (a product's import store is set).
        if issuer.productUserIds != nil, let productUserId = subject.productUserId { result["external_id"] = .string(productUserId) }
        return result
    }
}
