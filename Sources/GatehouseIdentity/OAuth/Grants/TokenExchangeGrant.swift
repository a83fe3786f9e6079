import Foundation
import GatehouseCrypto
import GatehouseStore

/// Turns a third-party ID token (today: a native Sign in with Apple identity token) into the Gatehouse
/// user it belongs to, creating or linking the account as a provider sign-in would. The server wires
/// the implementation in, so this layer never imports the providers.
public protocol ExternalIDTokenResolver: Sendable {
    /// Verifies `idToken` for `client` (its audience must be one of the client's native app ids) and
    /// `rawNonce` (the token's nonce must be its SHA-256 hex), then returns the user and the sign-in method.
    /// Throws ``OAuthError`` (`invalid_grant` for a token that fails, `invalid_client` for a client that
    /// is not a native app) — nothing is written when it throws.
    func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String)

    /// The same, with the name the app got from the provider beside the token (Apple gives it to the app
    /// on the first authorization only, never in the token): used when the account is created or the
    /// identity has no name yet.
    func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String)
}

extension ExternalIDTokenResolver {
    public func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String)
    {
        try await resolve(idToken: idToken, rawNonce: rawNonce, client: client, context: context)
    }
}

/// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693) with
/// `subject_token_type=urn:ietf:params:oauth:token-type:id_token`: a native app exchanges Apple's identity
/// token for Gatehouse tokens (flow F3, token-based apps).
///
/// The nonce travels as `raw_nonce` — the same name and meaning as on `POST /native/apple`: the raw
/// value the app generated, whose SHA-256 hex it put on Apple's request. It is required: without it a
/// token lifted from any other app session of the same bundle id could be replayed here.
struct TokenExchangeGrant: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"

    let resolver: (any ExternalIDTokenResolver)?
    let issuer: TokenIssuer

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        guard let resolver else { throw OAuthError(.unsupportedGrantType, "Token exchange is not enabled on this server.") }
        // Client policy first: only clients registered for this grant, like every other grant.
        try request.requireGrant(Self.grantType)
        let subjectToken = try request.required("subject_token")
        guard try request.required("subject_token_type") == Self.idTokenType else {
            throw OAuthError.invalidRequest("subject_token_type must be \(Self.idTokenType).")
        }
        // Only access tokens are issued (an ID token and refresh token come along as for other grants).
        if let wanted = request.parameters["requested_token_type"], wanted != Self.accessTokenType {
            throw OAuthError.invalidRequest("requested_token_type must be \(Self.accessTokenType).")
        }
        // Acting for someone else (delegation) is not offered: the subject token is the whole story.
        guard request.parameters["actor_token"] == nil else { throw OAuthError.invalidRequest("actor_token is not supported.") }
        let rawNonce = try request.required("raw_nonce")
        // The scope is checked before the token: a refused scope must not create an account.
        let scope = try request.client.grantable(request.parameters["scope"], default: Self.defaultScope)
        // `given_name`/`family_name`: the same names as on `POST /native/apple` (Apple's first-sign-in name).
        let name = [request.parameters["given_name"], request.parameters["family_name"]]
            .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        let (user, method) = try await resolver.resolve(idToken: subjectToken, rawNonce: rawNonce,
                                                        name: name.isEmpty ? nil : String(name.prefix(200)),
                                                        client: request.client, context: request.context)
        let response = try await issuer.issueForExternalSignIn(client: request.client, user: user, scope: scope, method: method,
                                                               proof: request.proof)
        return TokenResponse(accessToken: response.accessToken, expiresIn: response.expiresIn, refreshToken: response.refreshToken,
                             idToken: response.idToken, scope: response.scope, issuedTokenType: Self.accessTokenType,
                             tokenType: response.tokenType)
    }

    static let defaultScope = Scope([Scope.openID, Scope.profile, Scope.email])
}

extension TokenIssuer {
    /// Tokens for a user who just signed in at a third party on behalf of `client` (native Sign in with
    /// Apple, either `POST /native/apple` with `response=tokens` or the token-exchange grant). A refresh
    /// token comes along under the same rule as every other grant.
    ///
    /// There is no page to ask on, so a third-party client gets tokens only within a consent the user
    /// gave it before (through `/oauth/authorize`); otherwise `access_denied`.
    /// `proof`: the request's verified DPoP proof, binding the tokens to its key as at the token endpoint.
    public func issueForExternalSignIn(client: OAuthClient, user: User, scope: Scope?, method: String,
                                       proof: DPoPProof? = nil) async throws -> TokenResponse {
        try await issueForExternalSignIn(client: client, user: user, scope: scope, methods: [method], proof: proof)
    }

    /// The same with the sign-in's RFC 8176 methods (a native passkey sign-in proves several).
    public func issueForExternalSignIn(client: OAuthClient, user: User, scope: Scope?, methods: [String],
                                       proof: DPoPProof? = nil) async throws -> TokenResponse {
        let scope = scope ?? TokenExchangeGrant.defaultScope
        if !client.firstParty {
            let remembered = try await consents?.find(userId: user.id, clientId: client.id)
            guard let remembered, Set(scope.values).isSubset(of: Set(remembered.scopes)) else {
                throw OAuthError(.accessDenied, "The user has not allowed this application yet; sign in through /oauth/authorize first.")
            }
        }
        var grant = TokenGrant(client: client, user: user, scope: scope, authTime: clock.now(), authMethods: methods,
                               issueRefreshToken: client.receivesRefreshToken(for: scope))
        if let proof {
            grant.accessTokenJKT = proof.thumbprint
            if client.kind == .public { grant.refreshTokenJKT = proof.thumbprint }
        }
        return try await issue(grant).response
    }

    /// The scope a native app asked for (absent: `openid profile email`), or `invalid_scope`.
    public static func externalSignInScope(_ requested: String?, client: OAuthClient) throws(OAuthError) -> Scope {
        try client.grantable(requested, default: TokenExchangeGrant.defaultScope)
    }
}
