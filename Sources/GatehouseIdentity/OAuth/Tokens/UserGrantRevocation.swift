import Foundation
import GatehouseStore

/// The rule for credential and session resets, in one place: whenever a user's
/// sessions are ended wholesale — password reset, password change, "End all other sessions",
/// disabling the account, the operator's `session revoke` — every OAuth grant of that user ends too:
/// all refresh-token families of every client, and through the families' revocation markers the
/// access tokens they issued (tokens without a family, i.e. client credentials, are not the user's).
/// ``SessionService/endAll(userId:keeping:)`` applies it, so no caller can end sessions and forget grants.
public struct UserGrantRevocation: Sendable {
    let refreshTokens: any RefreshTokenStore
    let revoked: any RevokedAccessTokenStore
    /// How long a family marker must stay on the revocation list: the access-token lifetime plus a margin.
    let markerLifetime: TimeInterval
    let clock: IdentityClock

    public init(database: any GatehouseDatabase, accessTokenLifetime: TimeInterval, clock: IdentityClock = .system) {
        refreshTokens = database.refreshTokens; revoked = database.revokedAccessTokens
        markerLifetime = accessTokenLifetime + 60; self.clock = clock
    }

    /// Ends every grant of `userId`. Markers are written before the rows are revoked (see
    /// ``TokenRevocation/revokeFamily(_:)`` for why that order closes the race with issuance).
    public func revokeAll(userId: String) async throws {
        let now = clock.now()
        for family in try await refreshTokens.familyIds(userId: userId, clientId: nil, now: now) {
            try await revoked.revoke(jti: AccessTokenValidator.familyMarker(family), expiresAt: now.addingTimeInterval(markerLifetime))
        }
        _ = try await refreshTokens.revokeAll(userId: userId, clientId: nil, now: now)
    }
}
