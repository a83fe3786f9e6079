import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders

/// `POST /auth/apple/notifications`: Apple's server-to-server events, verified (RS256 under Apple's
/// JWKS, `iss`, `aud`) before anything changes, then applied by ``AppleAccountEvents``. Answers 200 to
/// every verified event — also for users we do not know, replays and superseded retries, so Apple stops
/// retrying — and 400 to anything unverifiable.
struct AppleNotificationRoutes: Sendable {
    let apple: AppleProvider
    let events: AppleAccountEvents
    let audit: AuditTrail

    func register(into router: inout Router) {
        router.post("/auth/apple/notifications") { request async throws in try await handle(request) }
    }

    func handle(_ request: Request) async throws -> Response {
        let notification: AppleServerNotification
        do { notification = try await apple.verifyNotification(body: request.body) } catch {
            let reason = (error as? ProviderError)?.auditReason ?? "invalid"
            await audit.record(.providerNotification, userId: nil, context: request.clientContext,
                               details: ["provider": "apple", "result": "rejected", "reason": reason])
            return .text("The notification could not be verified.", status: .badRequest)
        }
        try await events.apply(Self.event(notification), context: request.clientContext)
        return Response(status: .ok)
    }

    static func event(_ notification: AppleServerNotification) -> AppleAccountEvents.Event {
        let kind: AppleAccountEvents.Event.Kind = switch notification.kind {
        case .emailDisabled: .emailDisabled
        case .emailEnabled: .emailEnabled
        case .consentRevoked: .consentRevoked
        case .accountDelete: .accountDelete
        }
        return AppleAccountEvents.Event(kind: kind, eventID: notification.eventID, subject: notification.subject,
                                        email: notification.email, time: notification.orderingTime)
    }
}
