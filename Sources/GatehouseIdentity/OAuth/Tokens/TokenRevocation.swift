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
    /// The marker is written first: an issuer that stores a token of this family afterwards sees the
    /// marker when it checks (``isFamilyRevoked(_:)``), one that stored it before has it revoked here.
    public func revokeFamily(_ familyId: String) async throws {
        let now = clock.now()
        try await revoked.revoke(jti: AccessTokenValidator.familyMarker(familyId), expiresAt: markerExpiry(now))
        _ = try await refreshTokens.revokeFamily(familyId, now: now)
    }

    /// Whether the family was revoked (its marker is on the revocation list).
    public func isFamilyRevoked(_ familyId: String) async throws -> Bool {
        try await revoked.isRevoked(jti: AccessTokenValidator.familyMarker(familyId))
    }

    /// A family marker must outlive every access token of the family, including one issued after it.
    func markerExpiry(_ now: Date) -> Date { now.addingTimeInterval(settings.accessTokenLifetime + 60) }

    /// Revokes everything a user granted a client (the account page's "revoke" button).
    public func revokeClient(userId: String, clientId: String) async throws {
        let now = clock.now()
        let families = try await refreshTokens.familyIds(userId: userId, clientId: clientId, now: now)
        _ = try await refreshTokens.revokeAll(userId: userId, clientId: clientId, now: now)
        for family in families {
            try await revoked.revoke(jti: AccessTokenValidator.familyMarker(family), expiresAt: markerExpiry(now))
        }
    }

    /// Revokes one access token by its `jti` until it would have expired anyway.
    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try await revoked.revoke(jti: jti, expiresAt: expiresAt)
    }
}
