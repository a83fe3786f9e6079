import Foundation
import GatehouseCrypto
import GatehouseStore

/// Ends tokens: a refresh family (and every access token it produced), or one access token.
public struct TokenRevocation: Sendable {
    let refreshTokens: any RefreshTokenStore
    let revoked: any RevokedAccessTokenStore
    let settings: OAuthSettings
    let clock: IdentityClock

    public init(refreshTokens: any RefreshTokenStore, revoked: any RevokedAccessTokenStore, settings: OAuthSettings,
                clock: IdentityClock = .system) {
        self.refreshTokens = refreshTokens; self.revoked = revoked; self.settings = settings; self.clock = clock
    }

    /// Revokes a grant's refresh tokens and, through the family marker, its outstanding access tokens.
    public func revokeFamily(_ familyId: String) async throws {
        let now = clock.now()
        _ = try await refreshTokens.revokeFamily(familyId, now: now)
        try await revoked.revoke(jti: AccessTokenValidator.familyMarker(familyId),
                                 expiresAt: now.addingTimeInterval(settings.accessTokenLifetime + 60))
    }

    /// Revokes everything a user granted a client (the account page's "revoke" button).
    public func revokeClient(userId: String, clientId: String) async throws {
        let now = clock.now()
        let families = try await refreshTokens.familyIds(userId: userId, clientId: clientId, now: now)
        _ = try await refreshTokens.revokeAll(userId: userId, clientId: clientId, now: now)
        for family in families {
            try await revoked.revoke(jti: AccessTokenValidator.familyMarker(family),
                                     expiresAt: now.addingTimeInterval(settings.accessTokenLifetime + 60))
        }
    }

    /// Revokes one access token by its `jti` until it would have expired anyway.
    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try await revoked.revoke(jti: jti, expiresAt: expiresAt)
    }
}
