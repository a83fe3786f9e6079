import Foundation
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
