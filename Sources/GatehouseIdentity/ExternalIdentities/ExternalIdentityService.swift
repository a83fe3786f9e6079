import Foundation
import GatehouseStore

/// The account rules for provider identities, shared by the web flow, the native endpoints and token
/// exchange: find-or-create, linking, private-relay and verified-email rules. Identities are keyed by
/// (provider, subject), never by email: an email only ever *suggests* an existing account.
public struct ExternalIdentityService: Sendable {
    /// What a verified identity means for Gatehouse accounts.
    public enum Outcome: Sendable {
        /// Sign this user in (a known identity, a new account, or an allowed automatic link).
        case signIn(User, created: Bool)
        /// The identity was added to the signed-in user's account.
        case linked(User)
        /// Refused, nothing written; `userId` and `email` name the account concerned, for the audit log and the page.
        case refused(ExternalSignInRefusal, userId: String?, email: String?)
    }

    let identities: any ExternalIdentityStore
    let users: any UserStore
    let clock: IdentityClock
    let audit: AuditTrail
    let linkVerifiedEmails: Bool
    let trustsEmail: @Sendable (String) -> Bool

    /// - Parameters:
    ///   - linkVerifiedEmails: whether a verified address from a trusted provider joins the account that has it.
    ///   - trustsEmail: whether a provider's verified email proves the address (configuration, per provider).
    public init(identities: any ExternalIdentityStore, users: any UserStore, clock: IdentityClock, audit: AuditTrail,
                linkVerifiedEmails: Bool, trustsEmail: @escaping @Sendable (String) -> Bool) {
        self.identities = identities; self.users = users; self.clock = clock; self.audit = audit
        self.linkVerifiedEmails = linkVerifiedEmails; self.trustsEmail = trustsEmail
    }

    /// Decides and writes what `identity` means: a sign-in, a link into `linkTo` (the account that started
    /// a link flow, which must still be `signedInUserId`), or a refusal.
    public func resolve(_ identity: VerifiedExternalIdentity, linkTo: String?, signedInUserId: String?,
                        context: ClientContext) async throws -> Outcome {
        let existing = try await identities.find(provider: identity.provider, subject: identity.subject)
        if let userId = linkTo {
            return try await link(identity, into: userId, existing: existing, signedInUserId: signedInUserId, context: context)
        }
        if let existing { return try await signInExisting(existing, with: identity) }
        guard let rawEmail = identity.email, let email = EmailAddress(rawEmail) else {
            return .refused(.missingEmail, userId: nil, email: nil)
        }
        guard identity.emailVerified else { return .refused(.unverifiedEmail, userId: nil, email: email.value) }
        if let owner = try await users.find(email: email.value) {
            return try await joinExisting(owner, identity, email: email.value, context: context)
        }
        let now = clock.now()
        // A new account's address counts as proven only when the provider is trusted for email.
        let user = User(id: RecordID.random(), email: email.value, displayName: identity.name, passwordHash: nil,
                        emailVerified: trustsEmail(identity.provider), disabled: false, createdAt: now, updatedAt: now)
        // The account and its first way in are one transaction: a lost race (the email or the identity
        // taken meanwhile) leaves neither behind.
        do { try await identities.createUser(user, withIdentity: record(identity, userId: user.id)) } catch let error as StoreError
            where error.kind == .conflict {
            if let winner = try await identities.find(provider: identity.provider, subject: identity.subject) {
                // The same person signing in twice at once: the other request created it; this one signs in.
                return try await signInExisting(winner, with: identity)
            }
            return .refused(.accountExists(confirmed: true), userId: nil, email: email.value)
        }
        await audit.record(.signUp, userId: user.id, context: context, details: ["provider": identity.provider])
        return .signIn(user, created: true)
    }

    private func link(_ identity: VerifiedExternalIdentity, into userId: String, existing: ExternalIdentity?, signedInUserId: String?,
                      context: ClientContext) async throws -> Outcome {
        guard signedInUserId == userId else { return .refused(.sessionChanged, userId: userId, email: nil) }
        guard let user = try await users.find(id: userId) else { throw StoreError.notFound(detail: "user of identity") }
        if let existing {
            guard existing.userId == userId else { return .refused(.linkedElsewhere, userId: userId, email: nil) }
            return .linked(user)
        }
        // An account whose address is unproven may belong to someone who typed another person's address:
        // nothing it links may survive the owner claiming it, so it links nothing.
        do { try AccountStanding.requireLinking(user) } catch {
            return .refused(.accountUnconfirmed(email: user.email), userId: userId, email: nil)
        }
        try await identities.create(record(identity, userId: userId))
        await audit.record(.identityLinked, userId: userId, context: context, details: ["provider": identity.provider])
        return .linked(user)
    }

    private func signInExisting(_ stored: ExternalIdentity, with identity: VerifiedExternalIdentity) async throws -> Outcome {
        var stored = stored
        guard let user = try await users.find(id: stored.userId) else { throw StoreError.notFound(detail: "user of identity") }
        guard !user.disabled else { return .refused(.disabled, userId: user.id, email: nil) }
        stored.email = identity.email ?? stored.email
        stored.emailVerified = identity.email == nil ? stored.emailVerified : identity.emailVerified
        stored.isPrivateRelay = identity.isPrivateRelay
        // Apple sends the name once only; keep the one we have when this sign-in carries none.
        stored.displayName = identity.name ?? stored.displayName
        if let sealed = identity.sealedRefreshToken {
            // The token and the client it was issued to travel together (revocation needs both).
            stored.sealedRefreshToken = sealed
            stored.tokenClientID = identity.tokenClientID
        }
        stored.lastUsedAt = clock.now()
        try await identities.update(stored)
        return .signIn(user, created: false)
    }

    /// A verified address that an account already has: recovery, an allowed automatic link, or a refusal.
    private func joinExisting(_ owner: User, _ identity: VerifiedExternalIdentity, email: String, context: ClientContext) async throws -> Outcome {
        // An account left with no way in at all (no password, no identity — as Apple's consent-revoked
        // left Apple-only accounts before it kept their only method) is recovered by a trusted provider's
        // proof of its confirmed address: exactly what a password reset by mail to that address would
        // allow. Relay addresses count only at Apple, whose relay reaches the same user.
        if owner.passwordHash == nil, owner.emailVerified, !owner.disabled, trustsEmail(identity.provider),
           !identity.isPrivateRelay || identity.provider == "apple",
           try await identities.list(userId: owner.id).isEmpty {
            try await identities.create(record(identity, userId: owner.id))
            await audit.record(.identityLinked, userId: owner.id, context: context, details: ["provider": identity.provider, "by": "recovery"])
            return .signIn(owner, created: false)
        }
        // Private relay addresses never merge; other verified addresses only when the operator allows it,
        // only from a provider trusted for email, and only into an account whose own address is proven —
        // else the victim's first provider sign-in would land in an account an attacker pre-created.
        if linkVerifiedEmails, !identity.isPrivateRelay, trustsEmail(identity.provider), AccountStanding.acceptsAutomaticLink(owner) {
            try await identities.create(record(identity, userId: owner.id))
            await audit.record(.identityLinked, userId: owner.id, context: context, details: ["provider": identity.provider, "by": "verified_email"])
            return .signIn(owner, created: false)
        }
        return .refused(.accountExists(confirmed: owner.emailVerified), userId: owner.id, email: email)
    }

    private func record(_ identity: VerifiedExternalIdentity, userId: String) -> ExternalIdentity {
        let now = clock.now()
        return ExternalIdentity(provider: identity.provider, subject: identity.subject, userId: userId, email: identity.email,
                                emailVerified: identity.emailVerified, isPrivateRelay: identity.isPrivateRelay, displayName: identity.name,
                                sealedRefreshToken: identity.sealedRefreshToken,
                                tokenClientID: identity.sealedRefreshToken == nil ? nil : identity.tokenClientID, createdAt: now, lastUsedAt: now)
    }
}
