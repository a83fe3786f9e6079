import Foundation
import GatehouseCrypto
import GatehouseStore

/// `grant_type=refresh_token` (RFC 6749 §6) with rotation: every use returns a new refresh token, and a
/// rotated token presented again (outside the grace window) revokes its whole family (RFC 9700 §4.14.2).
struct RefreshTokenGrant: Sendable {
    let refreshTokens: any RefreshTokenStore
    let users: any UserStore
    let issuer: TokenIssuer
    let revocation: TokenRevocation
    let clock: IdentityClock

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        try request.requireGrant("refresh_token")
        let value = try request.required("refresh_token")
        let hash = TokenHash(SHA256.hash(value))
        guard let stored = try await refreshTokens.find(hash: hash) else {
            throw OAuthError.invalidGrant("The refresh token is invalid.")
        }
        guard stored.clientId == request.client.id else {
            throw OAuthError.invalidGrant("The refresh token was issued to another client.")
        }
        let original = Scope(parsing: stored.scope) ?? Scope([])
        let scope = try request.client.grantable(request.parameters["scope"], default: original)
        guard scope.isSubset(of: original) else {
            throw OAuthError(.invalidScope, "A refresh cannot widen the scope of the original grant.")
        }
        guard let user = try await users.find(id: stored.userId), !user.disabled else {
            try await revocation.revokeFamily(stored.familyId)
            throw OAuthError.invalidGrant("The account is not available.")
        }
        var grant = TokenGrant(client: request.client, user: user, scope: scope, authTime: stored.authTime,
                               authMethods: stored.authMethods, familyId: stored.familyId, issueRefreshToken: true,
                               familyExpiresAt: stored.expiresAt)
        // The family's sign-in time is its session's: password-grant families have no browser session, but
        // their `sid` then names none either, so a logout never matches it.
        grant.sessionBound = !stored.authMethods.isEmpty
        // Claim first, sign after: the rotation (row lock, reuse detection, family revocation) decides
        // before any signature is computed, so a reused, revoked or concurrently rotated token costs
        // no signing work (issue #17). Everything that can fail (standing, keys) is checked before the claim.
        let prepared = try await issuer.prepare(grant, refreshValue: issuer.successor(of: value))
        guard let replacement = prepared.refreshRecord else { throw OAuthError(.serverError, "No refresh token was minted.") }
        switch try await refreshTokens.rotate(hash: hash, replacement: replacement, now: clock.now(),
                                              graceWindow: issuer.settings.refreshGraceWindow) {
        case .rotated:
            return try issuer.sign(prepared)
        case .reused(let token):
            try await revocation.revokeFamily(token.familyId)
            throw OAuthError.invalidGrant("The refresh token was already used; every token of this grant is now revoked.")
        case .invalid:
            throw OAuthError.invalidGrant("The refresh token is invalid, expired or revoked.")
        case .refused:
            throw OAuthError.invalidGrant("The refresh token was already rotated; use the refresh token that replaced it.")
        }
    }
}
