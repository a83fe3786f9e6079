import Foundation
import GatehouseCrypto
import GatehouseStore

/// `grant_type=refresh_token` (RFC 6749 §6) with rotation: every use returns a new refresh token, and a
/// rotated token presented again (outside the grace window) revokes its whole family (RFC 9700 §4.14.2).
struct RefreshTokenGrant: Sendable {
    let refreshTokens: any RefreshTokenStore
    let issuer: TokenIssuer
    let revocation: TokenRevocation
    let clock: IdentityClock
    /// Read only to tell whether a refreshed ID token's `sid` still names a live session.
    let sessions: any SessionStore

    func exchange(_ request: TokenRequest) async throws -> TokenResponse {
        try request.requireGrant("refresh_token")
        let presented = issuer.refreshValue(try request.required("refresh_token"))
        // A family token whose MAC fails was never issued here: refused before any database work.
        guard let hash = presented.hash, let successor = issuer.successor(of: presented) else {
            throw OAuthError.invalidGrant("The refresh token is invalid.")
        }
        let client = request.client
        let requestedScope = request.parameters["scope"]
        // The keys first (cached by the ring): the presented token's scope is not known yet, so the ID-token
        // key is fetched whenever it exists; `prepare` fails before the claim if the scope needs it and it is missing.
        let issuesIDToken = client.refreshIssuesIDToken
        let issueKeys = try await issuer.signingKeys(for: client, openID: issuesIDToken, idTokenKeyRequired: false)
        let issuer = issuer
        let proof = request.proof
        let resource = request.resource
        // Claim first, sign after: the store reads the token and its user, `prepare` below checks the
        // client, the scope and the account and builds the successor, and only then does the rotation
        // (row lock, reuse detection, family revocation) decide — all before any signature, so a reused,
        // revoked or concurrently rotated token costs no signing work. On SQLite this is one
        // hop to the writer; nothing in `prepare` waits.
        let outcome: RefreshExchange<PreparedIssue>
        do {
            outcome = try await refreshTokens.exchange(hash: hash, generation: presented.generation, now: clock.now(), graceWindow: issuer.settings.refreshGraceWindow) {
                stored, user in
                guard stored.clientId == client.id else {
                    throw OAuthError.invalidGrant("The refresh token was issued to another client.")
                }
                // A family bound to a DPoP key (RFC 9449 §5) is refused without a proof made with that key —
                // before anything rotates, so a copied token gets the thief nothing and costs the owner nothing.
                if let jkt = stored.dpopJKT {
                    guard let proof else {
                        throw OAuthError.invalidGrant("The refresh token is bound to a DPoP key; send a DPoP proof made with it.")
                    }
                    guard ConstantTime.equals(proof.thumbprint, jkt) else {
                        throw OAuthError.invalidGrant("The refresh token is bound to another DPoP key.")
                    }
                }
                let original = Scope(parsing: stored.scope) ?? Scope([])
                let scope = try client.grantable(requestedScope, default: original)
                guard scope.isSubset(of: original) else {
                    throw OAuthError(.invalidScope, "A refresh cannot widen the scope of the original grant.")
                }
                guard let user, !user.disabled else { throw AccountUnavailable(familyId: stored.familyId) }
                var grant = TokenGrant(client: client, user: user, scope: scope, authTime: stored.authTime,
                                       authMethods: stored.authMethods, familyId: stored.familyId, issueRefreshToken: true,
                                       familyExpiresAt: stored.expiresAt)
                // The family's sign-in time is its session's: password-grant families have no browser session, but
                // their `sid` then names none either, so a logout never matches it.
                grant.sessionBound = !stored.authMethods.isEmpty
                grant.issuesIDToken = issuesIDToken
                // The family keeps the key it started with; the access token is bound to this proof's key.
                grant.accessTokenJKT = proof?.thumbprint
                grant.refreshTokenJKT = stored.dpopJKT
                grant.resource = try AuthorizationCodeGrant.resource(resource, authorized: stored.resources)
                grant.authorizedResources = stored.resources
                let prepared = try issuer.prepare(grant, keys: issueKeys, refreshValue: successor)
                guard let replacement = prepared.refreshRecord else { throw OAuthError(.serverError, "No refresh token was minted.") }
                return (replacement, prepared)
            }
        } catch let unavailable as AccountUnavailable {
            try await revocation.revokeFamily(unavailable.familyId)
            throw OAuthError.invalidGrant("The account is not available.")
        }
        switch outcome {
        case .rotated(let prepared):
            return try issuer.sign(try await withoutEndedSession(prepared))
        case .unknown:
            throw OAuthError.invalidGrant("The refresh token is invalid.")
        case .reused(let token):
            try await revocation.revokeFamily(token.familyId)
            throw OAuthError.invalidGrant("The refresh token was already used; every token of this grant is now revoked.")
        case .invalid:
            throw OAuthError.invalidGrant("The refresh token is invalid, expired or revoked.")
        case .refused:
            throw OAuthError.invalidGrant("The refresh token was already rotated; use the refresh token that replaced it.")
        }
    }

    /// A refreshed ID token names its family's session (`sid`) only while that session lives: after a sign-out
    /// (or a timeout) an `offline_access` grant goes on, but its ID tokens stop naming a session the RP was told
    /// has ended (Back-Channel Logout 1.0 §2.1). Password-grant families name no session, so they carry none.
    private func withoutEndedSession(_ prepared: PreparedIssue) async throws -> PreparedIssue {
        guard prepared.idTokenExtra["sid"] != nil, let user = prepared.grant.user, let authTime = prepared.grant.authTime else { return prepared }
        func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        if try await sessions.list(userId: user.id, now: clock.now()).contains(where: { millis($0.createdAt) == millis(authTime) }) {
            return prepared
        }
        return prepared.removingIDTokenClaim("sid")
    }

    /// The token's user is gone or disabled: nothing is rotated, and its family is revoked.
    private struct AccountUnavailable: Error {
        let familyId: String
    }
}
