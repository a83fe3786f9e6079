import Foundation
import GatehouseCrypto
import GatehouseStore

/// `grant_type=authorization_code` (RFC 6749 §4.1.3, PKCE RFC 7636 §4.6). Codes are single use and
/// bound to client, redirect URI and PKCE challenge; presenting a used code again revokes what it issued.
struct AuthorizationCodeGrant: Sendable {
    let codes: any AuthorizationCodeStore
    let users: any UserStore
    let issuer: TokenIssuer
    let revocation: TokenRevocation
    let clock: IdentityClock

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        try request.requireGrant("authorization_code")
        let value = try request.required("code")
        let redirectURI = request.parameters["redirect_uri"]
        let verifier = request.parameters["code_verifier"]
        let code: AuthorizationCode
        // The family is chosen before redemption and recorded by the same atomic statement that spends
        // the code: a replay racing this request finds it and revokes what is issued.
        let familyId = RecordID.random()
        let now = clock.now()
        switch try await codes.redeem(hash: TokenHash(SHA256.hash(value)), now: now, familyId: familyId,
                                      retainUntil: now.addingTimeInterval(Self.usedCodeRetention(request.client, issuer.settings))) {
        case .invalid:
            throw OAuthError.invalidGrant("The authorization code is invalid or has expired.")
        case .alreadyUsed(let used):
            if let family = used.issuedFamilyId { try await revocation.revokeFamily(family) }
            throw OAuthError.invalidGrant("The authorization code was already used; the tokens issued for it are revoked.")
        case .redeemed(let redeemed):
            code = redeemed
        }
        guard code.clientId == request.client.id else {
            throw OAuthError.invalidGrant("The authorization code was issued to another client.")
        }
        if code.redirectURI.isEmpty {
            // RFC 6749 §4.1.3: required only if the authorization request included it; one sent anyway
            // must still be a URI registered for this client.
            if let redirectURI, !redirectURI.isEmpty, !RedirectURIRules.matches(redirectURI, registered: request.client.redirectURIs) {
                throw OAuthError.invalidGrant("The redirect_uri is not registered for this client.")
            }
        } else {
            guard let redirectURI, !redirectURI.isEmpty else { throw OAuthError.invalidRequest("The redirect_uri parameter is missing.") }
            guard code.redirectURI == redirectURI else {
                throw OAuthError.invalidGrant("The redirect_uri does not match the authorization request.")
            }
        }
        if let challenge = code.codeChallenge {
            guard let verifier else { throw OAuthError.invalidGrant("The code_verifier is missing (PKCE).") }
            guard PKCE.isValidVerifier(verifier), PKCE.verify(verifier: verifier, challenge: challenge) else {
                throw OAuthError.invalidGrant("The code_verifier does not match the code_challenge.")
            }
        } else if verifier != nil {
            throw OAuthError.invalidGrant("A code_verifier was sent but the authorization request had no code_challenge.")
        }
        guard let user = try await users.find(id: code.userId), !user.disabled else {
            throw OAuthError.invalidGrant("The account is not available.")
        }
        let scope = Scope(parsing: code.scope) ?? Scope([])
        var grant = TokenGrant(client: request.client, user: user, scope: scope, authTime: code.authTime,
                               authMethods: code.authMethods, nonce: code.nonce, familyId: code.issuedFamilyId ?? familyId,
                               issueRefreshToken: request.client.receivesRefreshToken(for: scope))
        grant.sessionBound = true
        grant.releasesProductUserId = true
        request.bind(&grant)
        let response = try await issuer.issue(grant).response
        // A replay that revoked the family before our refresh token was stored revoked nothing in the
        // store yet; its family marker is written first, so checking it now closes that window.
        if try await revocation.isFamilyRevoked(grant.familyId) {
            try await revocation.revokeFamily(grant.familyId)
            throw OAuthError.invalidGrant("The authorization code was used twice; the tokens issued for it are revoked.")
        }
        return response
    }

    /// How long a used code is remembered, so a replay still revokes what it issued: as long as those
    /// tokens can live (the refresh family's lifetime, or the access token's), plus the code's own
    /// lifetime as a margin for clock steps.
    static func usedCodeRetention(_ client: OAuthClient, _ settings: OAuthSettings) -> TimeInterval {
        let tokens = client.grantTypes.contains("refresh_token") ? max(settings.refreshTokenLifetime, settings.accessTokenLifetime)
                                                                  : settings.accessTokenLifetime
        return tokens + settings.codeLifetime
    }
}
