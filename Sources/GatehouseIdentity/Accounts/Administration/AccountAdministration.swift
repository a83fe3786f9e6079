import Foundation
import GatehouseStore

/// What administrators do to accounts, shared by the `gatehouse user|session|audit` commands and
/// the admin API (`/admin/v1/`), so both follow the same rules and leave the same audit trail.
public struct AccountAdministration: Sendable {
    let users: any UserStore
    let search: any UserSearchStore
    let identities: any ExternalIdentityStore
    let auditLog: any AuditLogStore
    let accounts: AccountService
    let sessions: SessionService
    let audit: AuditTrail
    let clock: IdentityClock
    /// Queues the revocation of provider tokens (Apple's) that an unlink or a deletion leaves behind
    /// (nil: no provider revokes).
    let providerTokens: ProviderTokenRevocations?

    /// - Parameter providerTokens: the server's provider revocation queue, so admin unlinks and deletions
    ///   revoke Apple's tokens as the account page does (nil: no provider revokes).
    public init(users: any UserStore, search: any UserSearchStore, identities: any ExternalIdentityStore, auditLog: any AuditLogStore,
                accounts: AccountService, sessions: SessionService, audit: AuditTrail, clock: IdentityClock,
                providerTokens: ProviderTokenRevocations?) {
        self.users = users; self.search = search; self.identities = identities; self.auditLog = auditLog
        self.accounts = accounts; self.sessions = sessions; self.audit = audit; self.clock = clock
        self.providerTokens = providerTokens
    }

    /// One change to an account's profile.
    public struct ProfileChange: Sendable, Equatable {
        public var email: String?
        public var displayName: String??
        public var emailVerified: Bool?
        public init(email: String? = nil, displayName: String?? = nil, emailVerified: Bool? = nil) {
            self.email = email; self.displayName = displayName; self.emailVerified = emailVerified
        }
    }

    /// Accounts whose email contains `query`, in creation order.
    public func list(query: String?, cursor: String?, limit: Int) async throws -> Page<User> {
        try await search.search(emailContaining: query, after: cursor, limit: limit)
    }

    public func user(id: String) async throws -> User {
        guard let user = try await users.find(id: id) else { throw AccountError.notFound }
        return user
    }

    public func user(email: String) async throws -> User {
        guard let address = EmailAddress(email), let user = try await users.find(email: address.value) else {
            throw AccountError.notFound
        }
        return user
    }

    /// Creates an account (no rate limit; the password optional and held to the password policy).
    public func create(email: String, password: String?, displayName: String?, verified: Bool, by actor: String) async throws -> User {
        try await accounts.createByOperator(email: email, password: password, displayName: displayName, verified: verified, by: actor)
    }

    /// Changes email, name or the verified flag.
    public func update(id: String, _ change: ProfileChange, by actor: String) async throws -> User {
        _ = try await user(id: id)
        var changes: [UserChange] = []
        if let raw = change.email {
            guard let email = EmailAddress(raw) else { throw AccountError.invalidEmail }
            changes.append(.email(email.value))
        }
        if let name = change.displayName { changes.append(.displayName(name)) }
        if let verified = change.emailVerified { changes.append(.emailVerified(verified)) }
        guard !changes.isEmpty else { return try await user(id: id) }
        do {
            let updated = try await users.update(id: id, changes, at: clock.now())
            await audit.record(.accountUpdated, userId: id, context: .unknown, details: ["by": actor])
            return updated
        } catch let error as StoreError where error.kind == .conflict {
            throw AccountError.emailTaken
        } catch let error as StoreError where error.kind == .notFound {
            throw AccountError.notFound
        }
    }

    /// Disables (ending every session) or re-enables an account.
    public func setDisabled(id: String, _ disabled: Bool) async throws -> User {
        _ = try await user(id: id)
        try await accounts.setDisabled(userId: id, disabled, context: .unknown)
        return try await user(id: id)
    }

    /// Deletes an account, its sessions and sign-in methods (the audit log stays).
    public func delete(id: String) async throws {
        // Sealed before the rows go (the tokens live in them), queued only once the delete happened.
        let pending = try providerTokens?.prepare(try await identities.list(userId: id)) ?? []
        try await accounts.deleteAccountByOperator(userId: id, context: .unknown)
        await providerTokens?.enqueue(pending, userId: id, context: .unknown)
    }

    public func sessions(of id: String) async throws -> [Session] {
        _ = try await user(id: id)
        return try await sessions.list(userId: id)
    }

    /// Ends one session (by the hex of its stored hash); false when the user has no such session.
    public func endSession(userId: String, sessionId: String, by actor: String) async throws -> Bool {
        guard let hash = TokenHash(hex: sessionId) else { return false }
        let ended = try await sessions.end(idHash: hash, ofUser: userId)
        if ended { await audit.record(.sessionEnded, userId: userId, context: .unknown, details: ["by": actor]) }
        return ended
    }

    /// Ends every session of an account.
    public func endAllSessions(userId: String, by actor: String) async throws -> Int {
        let ended = try await sessions.endAll(userId: userId)
        await audit.record(.sessionsRevoked, userId: userId, context: .unknown, details: ["by": actor])
        return ended
    }

    public func identities(of id: String) async throws -> [ExternalIdentity] {
        _ = try await user(id: id)
        return try await identities.list(userId: id)
    }

    /// Unlinks a provider identity from the account; false when it is not linked to it. Refuses
    /// (``AccountError/lastSignInMethod``) to remove the account's only way in, decided by the store in the
    /// same step as the delete so two racing unlinks cannot both pass; queues the revocation of the
    /// identity's provider token (Apple) once it is gone.
    public func unlink(userId: String, provider: String, subject: String, by actor: String) async throws -> Bool {
        let unlinking = IdentityUnlinking(identities: identities, audit: audit, revocations: providerTokens)
        switch try await unlinking.unlink(userId: userId, provider: provider, subject: subject, by: actor, context: .unknown) {
        case .unlinked: return true
        case .lastMethod: throw AccountError.lastSignInMethod
        case .notLinked: return false
        }
    }

    /// An account's audit entries, newest first, optionally only of one event type.
    public func auditLog(userId: String, type: String?, limit: Int) async throws -> [AuditRecord] {
        let records = try await auditLog.list(userId: userId, limit: type == nil ? limit : 1000)
        guard let type else { return records }
        return Array(records.filter { $0.event.type == type }.prefix(limit))
    }
}
