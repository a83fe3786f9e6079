import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore

/// Decides what a verified provider identity means for Gatehouse accounts. Identities are keyed by
/// (provider, subject), never by email: an email only ever *suggests* an existing account.
struct ProviderAccountLinker: Sendable {
    /// The outcome the completion step turns into a response.
    enum Outcome: Sendable {
        /// Sign this user in (a known identity, a new account, or an allowed automatic link).
        case signIn(User, created: Bool)
        /// The identity was added to the signed-in user's account.
        case linked(User)
        /// Show this message on the sign-in (or account) page; nothing was written.
        case refused(message: String, reason: String, userId: String?, email: String?)
    }

    let database: any GatehouseDatabase
    let clock: IdentityClock
    let audit: AuditTrail
    let linkVerifiedEmails: Bool
    /// Whether a provider's verified email proves the address (``ProvidersConfiguration/trustsEmail(of:)``).
    let trustsEmail: @Sendable (String) -> Bool
    let displayName: @Sendable (String) -> String

    func resolve(_ ticket: ProviderFlowStore.Ticket, signedInUserId: String?, context: ClientContext) async throws -> Outcome {
        let label = displayName(ticket.provider)
        let existing = try await database.externalIdentities.find(provider: ticket.provider, subject: ticket.subject)
        if case .link(let userId) = ticket.flow.intent {
            guard signedInUserId == userId else {
                return .refused(message: "Your session changed while linking \(label). Sign in and try again.", reason: "link_session_mismatch",
                                userId: userId, email: nil)
            }
            if let existing {
                guard existing.userId == userId else {
                    return .refused(message: "That \(label) account is already linked to another Gatehouse account.",
                                    reason: "identity_linked_elsewhere", userId: userId, email: nil)
                }
                guard let user = try await database.users.find(id: userId) else { throw StoreError.notFound(detail: "user of identity") }
                return .linked(user)
            }
            guard let user = try await database.users.find(id: userId) else { throw StoreError.notFound(detail: "user of identity") }
            // An account whose address is unproven may belong to someone who typed another person's address:
            // nothing it links may survive the owner claiming it, so it links nothing (issue #14 item 2).
            do { try AccountStanding.requireLinking(user) } catch {
                return .refused(message: "Confirm your email address before adding a sign-in method: open the link we sent to \(user.email).",
                                reason: "link_unverified_account", userId: userId, email: nil)
            }
            try await createIdentity(ticket, userId: userId)
            await audit.record(.identityLinked, userId: userId, context: context, details: ["provider": ticket.provider])
            return .linked(user)
        }
        if var identity = existing {
            guard let user = try await database.users.find(id: identity.userId) else { throw StoreError.notFound(detail: "user of identity") }
            guard !user.disabled else {
                return .refused(message: "This account is disabled.", reason: "disabled", userId: user.id, email: nil)
            }
            identity.email = ticket.email ?? identity.email
            identity.emailVerified = ticket.email == nil ? identity.emailVerified : ticket.emailVerified
            identity.isPrivateRelay = ticket.isPrivateRelay
            // Apple sends the name once only; keep the one we have when this sign-in carries none.
            identity.displayName = ticket.name ?? identity.displayName
            if let sealed = ticket.sealedRefreshToken {
                // The token and the client it was issued to travel together (revocation needs both).
                identity.sealedRefreshToken = sealed
                identity.tokenClientID = ticket.tokenClientID
            }
            identity.lastUsedAt = clock.now()
            try await database.externalIdentities.update(identity)
            return .signIn(user, created: false)
        }
        guard let rawEmail = ticket.email, let email = EmailAddress(rawEmail) else {
            return .refused(message: "\(label) did not share an email address, which a new account needs. Allow access to your email and try again.",
                            reason: "missing_email", userId: nil, email: nil)
        }
        guard ticket.emailVerified else {
            return .refused(message: "Your email address at \(label) is not verified. Verify it there and try again.",
                            reason: "unverified_email", userId: nil, email: email.value)
        }
        if let owner = try await database.users.find(email: email.value) {
            // An account left with no way in at all (no password, no identity — as Apple's consent-revoked
            // left Apple-only accounts before it kept their only method) is recovered by a trusted provider's
            // proof of its confirmed address: exactly what a password reset by mail to that address would
            // allow. Relay addresses count only at Apple, whose relay reaches the same user (#15 item 3).
            if owner.passwordHash == nil, owner.emailVerified, !owner.disabled, trustsEmail(ticket.provider),
               !ticket.isPrivateRelay || ticket.provider == "apple",
               try await database.externalIdentities.list(userId: owner.id).isEmpty {
                try await createIdentity(ticket, userId: owner.id)
                await audit.record(.identityLinked, userId: owner.id, context: context, details: ["provider": ticket.provider, "by": "recovery"])
                return .signIn(owner, created: false)
            }
            // Private relay addresses never merge; other verified addresses only when the operator allows it,
            // only from a provider trusted for email, and only into an account whose own address is proven —
            // else the victim's first provider sign-in would land in an account an attacker pre-created.
            if linkVerifiedEmails, !ticket.isPrivateRelay, trustsEmail(ticket.provider), AccountStanding.acceptsAutomaticLink(owner) {
                try await createIdentity(ticket, userId: owner.id)
                await audit.record(.identityLinked, userId: owner.id, context: context, details: ["provider": ticket.provider, "by": "verified_email"])
                return .signIn(owner, created: false)
            }
            if !owner.emailVerified {
                return .refused(message: "An account with \(email.value) exists, but its address was never confirmed. If the address is yours, choose a new password with “Forgot your password?” — that confirms it and removes anything someone else attached — then add \(label) from your account page.",
                                reason: "account_exists", userId: owner.id, email: email.value)
            }
            return .refused(message: "An account with \(email.value) already exists. Sign in to it the way you did before, then add \(label) under “Sign-in methods” on your account page.",
                            reason: "account_exists", userId: owner.id, email: email.value)
        }
        let now = clock.now()
        // A new account's address counts as proven only when the provider is trusted for email.
        let user = User(id: RecordID.random(), email: email.value, displayName: ticket.name, passwordHash: nil,
                        emailVerified: trustsEmail(ticket.provider),
                        disabled: false, createdAt: now, updatedAt: now)
        do { try await database.users.create(user) } catch let error as StoreError where error.kind == .conflict {
            return .refused(message: "An account with \(email.value) already exists.", reason: "account_exists", userId: nil, email: email.value)
        }
        do { try await createIdentity(ticket, userId: user.id) } catch {
            _ = try? await database.users.delete(id: user.id)   // lost a race for the same identity: leave nothing behind
            throw error
        }
        await audit.record(.signUp, userId: user.id, context: context, details: ["provider": ticket.provider])
        return .signIn(user, created: true)
    }

    private func createIdentity(_ ticket: ProviderFlowStore.Ticket, userId: String) async throws {
        let now = clock.now()
        try await database.externalIdentities.create(ExternalIdentity(
            provider: ticket.provider, subject: ticket.subject, userId: userId, email: ticket.email, emailVerified: ticket.emailVerified,
            isPrivateRelay: ticket.isPrivateRelay, displayName: ticket.name, sealedRefreshToken: ticket.sealedRefreshToken,
            tokenClientID: ticket.sealedRefreshToken == nil ? nil : ticket.tokenClientID, createdAt: now, lastUsedAt: now))
    }
}
