import Foundation
import GatehouseStore

/// The rule for credential and session resets, in one place: whenever a user's
/// sessions are ended wholesale — password reset, password change, "End all other sessions",
/// disabling the account, the operator's `session revoke` — every OAuth grant of that user ends too:
/// all refresh-token families of every client, and through the families' revocation markers the
/// access tokens they issued; and the user's "tokens issued before now are void" mark, which kills the
/// access tokens that came without a refresh token (no family to revoke) wherever the user is read with
/// the token (userinfo, introspection). Client-credentials tokens are not the user's.
/// ``SessionService/endAll(userId:keeping:)`` applies it, so no caller can end sessions and forget grants.
public struct UserGrantRevocation: Sendable {
    let refreshTokens: any RefreshTokenStore
    let revoked: any RevokedAccessTokenStore
    let users: any UserStore
    /// How long a family marker must stay on the revocation list: the access-token lifetime plus a margin.
    let markerLifetime: TimeInterval
    let clock: IdentityClock

    public init(refreshTokens: any RefreshTokenStore, revoked: any RevokedAccessTokenStore, users: any UserStore,
                accessTokenLifetime: TimeInterval, clock: IdentityClock = .system) {
        self.refreshTokens = refreshTokens; self.revoked = revoked; self.users = users
        markerLifetime = accessTokenLifetime + 60; self.clock = clock
    }

    /// Ends every grant of `userId`. Markers are written before the rows are revoked (see
    /// ``TokenRevocation/revokeFamily(_:)`` for why that order closes the race with issuance).
    public func revokeAll(userId: String) async throws {
        let now = clock.now()
        try await users.voidTokens(userId: userId, issuedBefore: now)
        for family in try await refreshTokens.familyIds(userId: userId, clientId: nil, now: now) {
            try await revoked.revoke(jti: AccessTokenValidator.familyMarker(family), expiresAt: now.addingTimeInterval(markerLifetime))
        }
        _ = try await refreshTokens.revokeAll(userId: userId, clientId: nil, now: now)
    }

    /// Ends the grants that came from one browser session and were not asked to outlive it (no
    /// `offline_access`; OIDC Core §11): the families begun by that sign-in, and their access tokens.
    public func revokeSessionGrants(userId: String, signedInAt: Date) async throws {
        let now = clock.now()
        for family in try await refreshTokens.sessionFamilyIds(userId: userId, signedInAt: signedInAt, now: now) {
            try await revoked.revoke(jti: AccessTokenValidator.familyMarker(family), expiresAt: now.addingTimeInterval(markerLifetime))
            _ = try await refreshTokens.revokeFamily(family, now: now)
        }
    }
}
