import Foundation
import GatehouseStore

/// Applies Apple's server-to-server account events (already verified by the Providers layer: RS256 under
/// Apple's JWKS, `iss`, `aud`) to Gatehouse accounts.
///
/// Every event is remembered (``ProviderEventStore``) before it is applied: the same event again (a
/// captured notification replayed, or Apple's own retry) changes nothing, and neither does an event older
/// than one already applied for the same user (an out-of-order retry flipping `email-enabled` back to
/// `email-disabled`).
public struct AppleAccountEvents: Sendable {
    /// One verified notification.
    public struct Event: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case emailDisabled = "email-disabled"
            case emailEnabled = "email-enabled"
            case consentRevoked = "consent-revoked"
            case accountDelete = "account-delete"
        }
        public var kind: Kind
        /// Unique per event (the `jti`, or a digest of subject, type and time).
        public var eventID: String
        /// The user's Apple `sub`.
        public var subject: String
        public var email: String?
        /// When Apple says it happened (orders the events of one subject).
        public var time: Date

        public init(kind: Kind, eventID: String, subject: String, email: String?, time: Date) {
            self.kind = kind; self.eventID = eventID; self.subject = subject; self.email = email; self.time = time
        }
    }

    /// What an Apple ID deleted at Apple does to an account that had no other way in.
    public enum AccountDeletion: String, Sendable { case delete, disable }

    let identities: any ExternalIdentityStore
    /// The notifications already applied (replays and reordering are recognised here).
    let events: any ProviderEventStore
    let users: any UserStore
    let sessions: SessionService
    let accounts: AccountService
    let audit: AuditTrail
    let clock: IdentityClock
    let accountDeletion: AccountDeletion
    /// The provider name Apple is configured under.
    let provider = "apple"

    public init(identities: any ExternalIdentityStore, events: any ProviderEventStore, users: any UserStore, sessions: SessionService,
                accounts: AccountService, audit: AuditTrail, clock: IdentityClock, accountDeletion: AccountDeletion) {
        self.identities = identities; self.events = events; self.users = users; self.sessions = sessions; self.accounts = accounts; self.audit = audit
        self.clock = clock; self.accountDeletion = accountDeletion
    }

    /// Applies `event` (or recognises it as a replay, superseded or for nobody we know) and audits the result.
    public func apply(_ event: Event, context: ClientContext) async throws {
        let identity = try await identities.find(provider: provider, subject: event.subject)
        var details = ["provider": provider, "type": event.kind.rawValue]
        let outcome = try await events.record(ProviderEvent(
            provider: provider, eventID: event.eventID, subject: event.subject, type: event.kind.rawValue,
            eventTime: event.time, receivedAt: clock.now()))
        guard outcome == .apply else {
            details["result"] = outcome == .duplicate ? "replayed" : "superseded"
            await audit.record(.providerNotification, userId: identity?.userId, context: context, details: details)
            return
        }
        guard var identity else {
            details["result"] = "unknown_subject"
            await audit.record(.providerNotification, userId: nil, context: context, details: details)
            return
        }
        let userId = identity.userId
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            // The relay stops (or resumes) forwarding: remember whether mail to this address can arrive.
            identity.emailVerified = event.kind == .emailEnabled
            if let email = event.email { identity.email = email.lowercased() }
            try await identities.update(identity)
        case .consentRevoked:
            details["sessions_ended"] = String(try await endAppleSessions(userId: userId, reason: "apple_consent_revoked"))
            // Unlink Apple only when the account keeps another way in (decided atomically with the delete).
            // When Apple is the only one, the identity stays — without its token, which Apple has voided —
            // so the user can sign in with Apple again and consent anew instead of being locked out.
            switch try await identities.deleteUnlessLastMethod(provider: provider, subject: event.subject, userId: userId) {
            case .deleted:
                details["action"] = "unlinked"
                await audit.record(.identityUnlinked, userId: userId, context: context, details: ["provider": provider, "by": "apple"])
            case .lastMethod:
                details["action"] = "kept_only_method"
                identity.sealedRefreshToken = nil
                identity.tokenClientID = nil
                try await identities.update(identity)
            case .notFound:
                details["action"] = "none"
            }
        case .accountDelete:
            // The Apple ID is gone. The Gatehouse account goes with it only when Apple was its only way in;
            // an account that also has a password or another provider just loses Apple.
            details["sessions_ended"] = String(try await endAppleSessions(userId: userId, reason: "apple_account_deleted"))
            switch try await identities.deleteUnlessLastMethod(provider: provider, subject: event.subject, userId: userId) {
            case .deleted:
                details["action"] = "unlinked"
                await audit.record(.identityUnlinked, userId: userId, context: context,
                                   details: ["provider": provider, "by": "apple", "reason": "account-delete"])
            case .lastMethod:
                switch accountDeletion {
                case .delete:
                    details["action"] = "delete"
                    // The store removes the other sessions with the account: the product hears of them first.
                    try await sessions.announceDeletion(userId: userId)
                    _ = try await users.delete(id: userId)
                    await audit.record(.accountDeleted, userId: userId, context: context, details: ["by": "apple"])
                case .disable:
                    details["action"] = "disable"
                    _ = try await identities.delete(provider: provider, subject: event.subject)
                    try await accounts.setDisabled(userId: userId, true, context: context)
                }
            case .notFound:
                details["action"] = "none"
            }
        }
        details["result"] = "applied"
        await audit.record(.providerNotification, userId: userId, context: context, details: details)
    }

    /// Ends the sessions that signed in with Apple; returns how many.
    private func endAppleSessions(userId: String, reason: String) async throws -> Int {
        var ended = 0
        for session in try await sessions.list(userId: userId) where session.authMethods.contains(provider) {
            if try await sessions.end(idHash: session.idHash, ofUser: userId, reason: reason) { ended += 1 }
        }
        return ended
    }
}
