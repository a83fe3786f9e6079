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
        // RFC 9449 §10: a code bound with `dpop_jkt` is redeemed only with a proof of that key.
        if let jkt = code.dpopJKT {
            guard let proof = request.proof, ConstantTime.equals(proof.thumbprint, jkt) else {
                throw OAuthError.invalidGrant("The authorization code is bound to a DPoP key (dpop_jkt); send a proof made with it.")
            }
        }
        let resource = try Self.resource(request.resource, authorized: code.resources)
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
        grant.resource = resource
        grant.authorizedResources = code.resources
        let response = try await issuer.issue(grant).response
        // A replay that revoked the family before our refresh token was stored revoked nothing in the
        // store yet; its family marker is written first, so checking it now closes that window.
        if try await revocation.isFamilyRevoked(grant.familyId) {
            try await revocation.revokeFamily(grant.familyId)
            throw OAuthError.invalidGrant("The authorization code was used twice; the tokens issued for it are revoked.")
        }
        return response
    }

    /// The API the access token is for (RFC 8707 §2.2): with `resource` at authorize, the token request (and
    /// every refresh of its family) may name only one of those, and may leave it out when there was exactly
    /// one; without, any registered API.
    static func resource(_ requested: String?, authorized: [String]) throws(OAuthError) -> String? {
        guard !authorized.isEmpty else { return requested }
        if let requested {
            guard authorized.contains(requested) else {
                throw OAuthError(.invalidTarget, "The resource \(requested) was not named in the authorization request.")
            }
            return requested
        }
        guard authorized.count == 1 else {
            throw OAuthError(.invalidTarget, "The authorization named several resources; name the one this token is for.")
        }
        return authorized[0]
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
