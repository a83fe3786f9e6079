import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// `POST /auth/apple/notifications`: Apple's server-to-server events, verified (RS256 under Apple's
/// JWKS, `iss`, `aud`) before anything changes. Answers 200 to every verified event — also for users
/// we do not know, so Apple stops retrying — and 400 to anything unverifiable.
struct AppleNotificationRoutes: Sendable {
    let apple: AppleProvider
    let database: any GatehouseDatabase
    let sessions: SessionService
    let accounts: AccountService
    let audit: AuditTrail
    let clock: IdentityClock
    let accountDeletion: ProvidersConfiguration.AppleAccountDeletion
    let revocations: ProviderRevocationQueue

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
        await revocations.processDue()
        guard var identity = try await database.externalIdentities.find(provider: "apple", subject: event.subject) else {
            await audit.record(.providerNotification, userId: nil, context: request.clientContext,
                               details: ["provider": "apple", "type": event.kind.rawValue, "result": "unknown_subject"])
            return Response(status: .ok)
        }
        let userId = identity.userId
        var details = ["provider": "apple", "type": event.kind.rawValue]
        switch event.kind {
        case .emailDisabled, .emailEnabled:
            // The relay stops (or resumes) forwarding: remember whether mail to this address can arrive.
            identity.emailVerified = event.kind == .emailEnabled
            if let email = event.email { identity.email = email.lowercased() }
            try await database.externalIdentities.update(identity)
        case .consentRevoked:
            _ = try await database.externalIdentities.delete(provider: "apple", subject: event.subject)
            var ended = 0
            for session in try await sessions.list(userId: userId) where session.authMethods.contains("apple") {
                if try await sessions.end(idHash: session.idHash, ofUser: userId) { ended += 1 }
            }
            details["sessions_ended"] = String(ended)
            await audit.record(.identityUnlinked, userId: userId, context: request.clientContext, details: ["provider": "apple", "by": "apple"])
        case .accountDelete:
            switch accountDeletion {
            case .delete:
                _ = try await database.users.delete(id: userId)
                await audit.record(.accountDeleted, userId: userId, context: request.clientContext, details: ["by": "apple"])
            case .disable:
                _ = try await database.externalIdentities.delete(provider: "apple", subject: event.subject)
                try await accounts.setDisabled(userId: userId, true, context: request.clientContext)
            }
            details["action"] = accountDeletion.rawValue
        }
        await audit.record(.providerNotification, userId: userId, context: request.clientContext, details: details)
        return Response(status: .ok)
    }
}
