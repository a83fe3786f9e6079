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
    let users: any UserStore
    let identities: any ExternalIdentityStore
    let passkeys: any WebAuthnCredentialStore
    let refreshTokens: any RefreshTokenStore
    let consents: any ConsentStore
    let sessions: SessionService
    let revocation: TokenRevocation
    let audit: AuditTrail
    let clock: IdentityClock

    public init(users: any UserStore, identities: any ExternalIdentityStore, passkeys: any WebAuthnCredentialStore,
                refreshTokens: any RefreshTokenStore, consents: any ConsentStore, sessions: SessionService, revocation: TokenRevocation,
                audit: AuditTrail, clock: IdentityClock = .system) {
        self.users = users; self.identities = identities; self.passkeys = passkeys
        self.refreshTokens = refreshTokens; self.consents = consents; self.sessions = sessions; self.revocation = revocation; self.audit = audit; self.clock = clock
    }

    /// Applies the claim; returns the account as it is afterwards (verified).
    /// - Parameters:
    ///   - keepingSessionToken: a session of this account that presented the proof, kept alive.
    ///   - via: `verify_link` or `password_reset`, for the audit log.
    ///   - clearingPassword: the prover did not show they set the account's password or passkeys: they go too.
    ///   - clearingPasskeys: the passkeys go (by default with the password; a password reset replaced the password).
    @discardableResult
    public func claim(_ user: User, keepingSessionToken: String?, via: String, clearingPassword: Bool = false,
                      clearingPasskeys: Bool? = nil, context: ClientContext) async throws -> User {
        guard !user.emailVerified else { return user }
        let identities = try await self.identities.deleteAll(userId: user.id)
        var removed = try await endAttachments(userId: user.id, keepingSessionToken: keepingSessionToken)
        removed["identities_removed"] = String(identities)
        if clearingPassword { removed["password_cleared"] = "true" }
        if clearingPasskeys ?? clearingPassword {
            // Passkeys registered before the proof are the sign-up's secrets as much as its password.
            removed["passkeys_removed"] = String(try await passkeys.deleteAll(userID: user.id))
        }
        let claimed = try await users.update(id: user.id, [.emailVerified(true)] + (clearingPassword ? [.passwordHash(nil)] : []),
                                                      at: clock.now())
        await audit.record(.accountClaimed, userId: user.id, context: context, details: removed.merging(["via": via]) { $1 })
        return claimed
    }

    /// The part of a claim that an import which merged a row into an unproven account does after its batch
    /// (which already replaced the identities, the password and the verified flag in its transaction).
    public func claimedByImport(userId: String) async throws {
        let removed = try await endAttachments(userId: userId, keepingSessionToken: nil)
        await audit.record(.accountClaimed, userId: userId, context: .unknown, details: removed.merging(["via": "import"]) { $1 })
    }

    /// Ends every session but `keepingSessionToken`'s, revokes refresh tokens (and the access tokens they
    /// produced) and remembered consents; returns the counts for the audit entry.
    private func endAttachments(userId: String, keepingSessionToken: String?) async throws -> [String: String] {
        let ended = try await sessions.endAll(userId: userId, keeping: keepingSessionToken)
        let grants = try await refreshTokens.activeGrants(userId: userId, now: clock.now())
        for clientID in Set(grants.map(\.clientId)) {
            try await revocation.revokeClient(userId: userId, clientId: clientID)
        }
        var consents = 0
        for consent in try await self.consents.list(userId: userId) {
            if try await self.consents.revoke(userId: userId, clientId: consent.clientId) { consents += 1 }
        }
        return ["sessions_ended": String(ended), "grants_revoked": String(Set(grants.map(\.clientId)).count),
                "consents_removed": String(consents)]
    }
}
