import Foundation
import GatehouseStore

/// The first proof that the owner of an address holds an account (the verification link, or a password
/// reset by mail) on an account whose address was unproven until then.
///
/// Whoever signed up with the address may not have been its owner (accounts taken over
/// in advance), so everything attached before the proof goes: linked provider identities, sessions
/// (but the one presenting the proof, when it is this account's), refresh tokens and the access tokens
/// they produced, and remembered consents. Then the address is marked verified and the claim audited
/// with what it removed. On an account whose address was already proven this does nothing.
public struct EmailOwnershipClaim: Sendable {
    let database: any GatehouseDatabase
    let sessions: SessionService
    let revocation: TokenRevocation
    let audit: AuditTrail
    let clock: IdentityClock

    public init(database: any GatehouseDatabase, sessions: SessionService, revocation: TokenRevocation, audit: AuditTrail,
                clock: IdentityClock = .system) {
        self.database = database; self.sessions = sessions; self.revocation = revocation; self.audit = audit; self.clock = clock
    }

    /// Applies the claim; returns the account as it is afterwards (verified).
    /// - Parameters:
    ///   - keepingSessionToken: a session of this account that presented the proof, kept alive.
    ///   - via: `verify_link` or `password_reset`, for the audit log.
    @discardableResult
    public func claim(_ user: User, keepingSessionToken: String?, via: String, context: ClientContext) async throws -> User {
        guard !user.emailVerified else { return user }
        let identities = try await database.externalIdentities.deleteAll(userId: user.id)
        let ended = try await sessions.endAll(userId: user.id, keeping: keepingSessionToken)
        let now = clock.now()
        let grants = try await database.refreshTokens.activeGrants(userId: user.id, now: now)
        for clientID in Set(grants.map(\.clientId)) {
            try await revocation.revokeClient(userId: user.id, clientId: clientID)
        }
        var consents = 0
        for consent in try await database.consents.list(userId: user.id) {
            if try await database.consents.revoke(userId: user.id, clientId: consent.clientId) { consents += 1 }
        }
        let claimed = try await database.users.update(id: user.id, [.emailVerified(true)], at: now)
        await audit.record(.accountClaimed, userId: user.id, context: context, details: [
            "via": via, "identities_removed": String(identities), "sessions_ended": String(ended),
            "grants_revoked": String(Set(grants.map(\.clientId)).count), "consents_removed": String(consents),
        ])
        return claimed
    }
}
