import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// `POST /auth/apple/notifications`: Apple's server-to-server events, verified (RS256 under Apple's
/// JWKS, `iss`, `aud`) before anything changes. Answers 200 to every verified event — also for users
/// we do not know, replays and superseded retries, so Apple stops retrying — and 400 to anything unverifiable.
///
/// Every verified event is remembered (``ProviderEventStore``) before it is applied: the same event
/// again (a captured notification replayed, or Apple's own retry) changes nothing, and neither does an
/// event older than one already applied for the same user (an out-of-order retry flipping
/// `email-enabled` back to `email-disabled`) — issue #14 item 8.
struct AppleNotificationRoutes: Sendable {
    let apple: AppleProvider
    let database: any GatehouseDatabase
    let sessions: SessionService
    let accounts: AccountService
    let audit: AuditTrail
    let clock: IdentityClock
    let accountDeletion: ProvidersConfiguration.AppleAccountDeletion

    func register(into router: inout Router) {
        router.post("/auth/apple/notifications") { request async throws in try await handle(request) }
    }

    func handle(_ request: Request) async throws -> Response {
        let event: AppleServerNotification
        do { event = try await apple.verifyNotification(body: request.body) } catch {
            let reason = (error as? ProviderError)?.auditReason ?? "invalid"
            await audit.record(.providerNotification, userId: nil, context: request.clientContext,
                               details: ["provider": "apple", "result": "rejected", "reason": reason])
            return .text("The notification could not be verified.", status: .badRequest)
        }
        let identity = try await database.externalIdentities.find(provider: "apple", subject: event.subject)
        var details = ["provider": "apple", "type": event.kind.rawValue]
        let outcome = try await database.providerEvents.record(ProviderEvent(
            provider: "apple", eventID: event.eventID, subject: event.subject, type: event.kind.rawValue,
            eventTime: event.orderingTime, receivedAt: clock.now()))
        guard outcome == .apply else {
            details["result"] = outcome == .duplicate ? "replayed" : "superseded"
            await audit.record(.providerNotification, userId: identity?.userId, context: request.clientContext, details: details)
            return Response(status: .ok)
        }
        guard var identity else {
            details["result"] = "unknown_subject"
            await audit.record(.providerNotification, userId: nil, context: request.clientContext, details: details)
            return Response(status: .ok)
        }
        let userId = identity.userId
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            // The relay stops (or resumes) forwarding: remember whether mail to this address can arrive.
            identity.emailVerified = event.kind == .emailEnabled
            if let email = event.email { identity.email = email.lowercased() }
            try await database.externalIdentities.update(identity)
        case .consentRevoked:
            details["sessions_ended"] = String(try await endAppleSessions(userId: userId, reason: "apple_consent_revoked"))
            // Unlink Apple only when the account keeps another way in (decided atomically with the delete).
            // When Apple is the only one, the identity stays — without its token, which Apple has voided —
            // so the user can sign in with Apple again and consent anew instead of being locked out (#15 item 3).
            switch try await database.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: event.subject, userId: userId) {
            case .deleted:
                details["action"] = "unlinked"
                await audit.record(.identityUnlinked, userId: userId, context: request.clientContext, details: ["provider": "apple", "by": "apple"])
            case .lastMethod:
                details["action"] = "kept_only_method"
                identity.sealedRefreshToken = nil
                identity.tokenClientID = nil
                try await database.externalIdentities.update(identity)
            case .notFound:
                details["action"] = "none"
            }
        case .accountDelete:
            // The Apple ID is gone. The Gatehouse account goes with it only when Apple was its only way in;
            // an account that also has a password or another provider just loses Apple.
            details["sessions_ended"] = String(try await endAppleSessions(userId: userId, reason: "apple_account_deleted"))
            switch try await database.externalIdentities.deleteUnlessLastMethod(provider: "apple", subject: event.subject, userId: userId) {
            case .deleted:
                details["action"] = "unlinked"
                await audit.record(.identityUnlinked, userId: userId, context: request.clientContext,
                                   details: ["provider": "apple", "by": "apple", "reason": "account-delete"])
            case .lastMethod:
                switch accountDeletion {
                case .delete:
                    details["action"] = "delete"
                    // The store removes the other sessions with the account: the product hears of them first.
                    await sessions.announceEnded(try await sessions.list(userId: userId), reason: "account_deleted")
                    _ = try await database.users.delete(id: userId)
                    await audit.record(.accountDeleted, userId: userId, context: request.clientContext, details: ["by": "apple"])
                case .disable:
                    details["action"] = "disable"
                    _ = try await database.externalIdentities.delete(provider: "apple", subject: event.subject)
                    try await accounts.setDisabled(userId: userId, true, context: request.clientContext)
                }
            case .notFound:
                details["action"] = "none"
            }
        }
        details["result"] = "applied"
        await audit.record(.providerNotification, userId: userId, context: request.clientContext, details: details)
        return Response(status: .ok)
    }

    /// Ends the sessions that signed in with Apple; returns how many.
    private func endAppleSessions(userId: String, reason: String) async throws -> Int {
        var ended = 0
        for session in try await sessions.list(userId: userId) where session.authMethods.contains("apple") {
            if try await sessions.end(idHash: session.idHash, ofUser: userId, reason: reason) { ended += 1 }
        }
        return ended
    }
}
