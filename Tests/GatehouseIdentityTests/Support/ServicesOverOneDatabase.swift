import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore

/// The tests' shorthand: services built over every store of one test database, as the server's wiring
/// (`IdentityServices`) builds them store by store.
extension SessionService {
    init(database: any GatehouseDatabase, policy: SessionPolicy = SessionPolicy(), clock: IdentityClock = .system,
         accessTokenLifetime: TimeInterval = 600) {
        self.init(store: database.sessions, hotReads: database.hotReads,
                  grants: UserGrantRevocation(refreshTokens: database.refreshTokens, revoked: database.revokedAccessTokens,
                                              users: database.users, accessTokenLifetime: accessTokenLifetime, clock: clock),
                  policy: policy, clock: clock)
    }
}

extension AccountService {
    init(database: any GatehouseDatabase, hasher: PasswordHasher, passwordPolicy: PasswordPolicy = PasswordPolicy(),
         limits: RateLimitPolicy = RateLimitPolicy(), audit: AuditTrail, sessions: SessionService, clock: IdentityClock = .system,
         deviceKey: [UInt8] = SecureRandom.bytes(32)) {
        self.init(users: database.users, oneTimeTokens: database.oneTimeTokens, rateLimits: database.rateLimits, hasher: hasher,
                  passwordPolicy: passwordPolicy, limits: limits, audit: audit, sessions: sessions, clock: clock, deviceKey: deviceKey)
    }
}
