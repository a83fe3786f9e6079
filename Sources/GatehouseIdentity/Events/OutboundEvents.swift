import Foundation
import GatehouseCrypto
import GatehouseStore

/// Tells the product about account changes: enqueues signed webhooks (``WebhookEndpoint``) and OpenID
/// Connect Back-Channel Logout tokens into the durable outbound queue. Never delivers anything itself:
/// the maintenance job runner does (``OutboundDeliveryWorker``), so no user request waits on the product.
///
/// A failure to enqueue is reported to `onFailure` and does not fail the change that caused it (it has
/// already happened; the store has no cross-store transaction to tie them together).
public struct OutboundEvents: Sendable {
    let store: any OutboundDeliveryStore
    let users: any UserStore
    let productUserIds: any UserImportStore
    let clients: any OAuthClientStore
    let consents: any ConsentStore
    let webhooks: [WebhookEndpoint]
    /// Some client may have a `backchannel_logout_uri` (a configuration-file setting, known at start).
    let backchannelLogout: Bool
    public let sids: SessionIdentifier
    let issuer: String
    let clock: IdentityClock
    let onFailure: @Sendable (any Error) -> Void

    public init(deliveries: any OutboundDeliveryStore, users: any UserStore, productUserIds: any UserImportStore,
                clients: any OAuthClientStore, consents: any ConsentStore, webhooks: [WebhookEndpoint], backchannelLogout: Bool = true, sids: SessionIdentifier,
                issuer: String, clock: IdentityClock = .system, onFailure: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.backchannelLogout = backchannelLogout
        store = deliveries; self.users = users; self.productUserIds = productUserIds
        self.clients = clients; self.consents = consents
        self.webhooks = webhooks; self.sids = sids; self.issuer = issuer; self.clock = clock; self.onFailure = onFailure
    }

    /// Whether anybody is listening: with no webhook and no back-channel client, session ends and audited
    /// changes cost nothing extra (the server then passes no ``OutboundEvents`` to its services).
    public var isActive: Bool { backchannelLogout || !webhooks.isEmpty }

    /// The back-channel event a logout token carries (Back-Channel Logout 1.0 §2.4).
    public static let logoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    // MARK: Entry points

    /// Sessions ended (sign-out, "end", end-all, password change, Apple `consent-revoked`, disable, delete):
    /// one logout token per session (with `sid` and `sub`) to every RP the user may be signed in to, and one
    /// `session.ended` webhook per session.
    public func sessionsEnded(_ sessions: [Session], reason: String) async {
        guard let userId = sessions.first?.userId, isActive else { return }
        do {
            let recipients = backchannelLogout ? try await logoutRecipients(userId: userId) : []
            await enqueue(sessionDeliveries(sessions, reason: reason, recipients: recipients))
        } catch { onFailure(error) }
    }

    /// An account about to be deleted: its sessions' logout tokens and webhooks, and the `sub`-only logout token
    /// of RPs that do not require a `sid`, all addressed now — the recipients include third-party clients the
    /// user consented to, and the consents go with the account.
    public func accountDeleting(userId: String, sessions: [Session]) async {
        guard isActive else { return }
        do {
            let recipients = backchannelLogout ? try await logoutRecipients(userId: userId) : []
            var deliveries = sessionDeliveries(sessions, reason: "account_deleted", recipients: recipients)
            for (client, registration) in recipients where !registration.sessionRequired {
                deliveries.append(logoutDelivery(client: client.id, sub: userId, sid: nil))
            }
            await enqueue(deliveries)
        } catch { onFailure(error) }
    }

    private func sessionDeliveries(_ sessions: [Session], reason: String,
                                   recipients: [(OAuthClient, BackchannelLogoutRegistration)]) -> [OutboundDelivery] {
        var deliveries: [OutboundDelivery] = []
        for session in sessions {
            let sid = sids.sid(for: session)
            for (client, _) in recipients {
                deliveries.append(logoutDelivery(client: client.id, sub: session.userId, sid: sid))
            }
            deliveries += webhookDeliveries(.sessionEnded, data: [
                "user": .object(["id": .string(session.userId)]), "sid": .string(sid), "reason": .string(reason),
            ])
        }
        return deliveries
    }

    /// An audited change: the webhook it announces, and for a disabled account a `sub`-only logout token (all
    /// of the user's sessions at the RP) to RPs that do not require a `sid` (a deleted account's went out
    /// before the delete, ``accountDeleting(userId:sessions:)``).
    public func audited(_ type: AuditEventType, userId: String?, details: [String: String]) async {
        guard let userId, let event = AccountEventType(audit: type) else { return }
        var deliveries: [OutboundDelivery] = []
        do {
            if backchannelLogout, event == .userDisabled {
                for (client, registration) in try await logoutRecipients(userId: userId) where !registration.sessionRequired {
                    deliveries.append(logoutDelivery(client: client.id, sub: userId, sid: nil))
                }
            }
            if webhooks.contains(where: { $0.events.contains(event) }) {
                var data: [String: JSONValue] = ["user": try await userObject(userId: userId, details: details)]
                if let provider = details["provider"] { data["provider"] = .string(provider) }
                if let actor = details["by"] { data["by"] = .string(actor) }
                if let factor = details["factor"] { data["factor"] = .string(factor) }
                deliveries += webhookDeliveries(event, data: data)
            }
        } catch { onFailure(error); return }
        await enqueue(deliveries)
    }

    // MARK: Building

    /// The RPs that hear of this user's logouts: clients with a `backchannel_logout_uri` that are
    /// first-party, or third-party ones the user consented to (others never saw the user).
    func logoutRecipients(userId: String) async throws -> [(OAuthClient, BackchannelLogoutRegistration)] {
        var result: [(OAuthClient, BackchannelLogoutRegistration)] = []
        for client in try await clients.list() {
            guard let registration = BackchannelLogoutRegistration(metadata: client.metadata) else { continue }
            let consented = client.firstParty ? true : try await consents.find(userId: userId, clientId: client.id) != nil
            if consented { result.append((client, registration)) }
        }
        return result
    }

    /// A logout token's lasting claims; `iat` and `exp` are added when it is signed, at each attempt.
    func logoutDelivery(client: String, sub: String, sid: String?) -> OutboundDelivery {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(client), "sub": .string(sub), "jti": .string(RecordID.random()),
            "events": .object([Self.logoutEvent: .object([:])]),
        ]
        if let sid { claims["sid"] = .string(sid) }
        let now = clock.now()
        return OutboundDelivery(id: RecordID.random(), kind: .backchannelLogout, destination: client, eventType: "logout",
                                payload: String(decoding: JSONValue.object(claims).jsonBytes, as: UTF8.self),
                                nextAttemptAt: now, createdAt: now)
    }

    /// One delivery per endpoint subscribed to `event`; all carry the same event id.
    func webhookDeliveries(_ event: AccountEventType, data: [String: JSONValue]) -> [OutboundDelivery] {
        let endpoints = webhooks.filter { $0.events.contains(event) }
        guard !endpoints.isEmpty else { return [] }
        let now = clock.now()
        let body: JSONValue = .object([
            "id": .string("evt_" + RecordID.random()), "type": .string(event.rawValue),
            "created_at": .integer(Int64(now.timeIntervalSince1970)), "data": .object(data),
        ])
        let payload = String(decoding: body.jsonBytes, as: UTF8.self)
        return endpoints.map {
            OutboundDelivery(id: RecordID.random(), kind: .webhook, destination: $0.url.absoluteString, eventType: event.rawValue,
                             payload: payload, nextAttemptAt: now, createdAt: now)
        }
    }

    /// The user as webhooks describe it; a deleted user is only its id (and the email the audit entry kept).
    func userObject(userId: String, details: [String: String]) async throws -> JSONValue {
        guard let user = try await users.find(id: userId) else {
            var object: [String: JSONValue] = ["id": .string(userId), "deleted": .bool(true)]
            if let email = details["email"] { object["email"] = .string(email) }
            return .object(object)
        }
        var object: [String: JSONValue] = [
            "id": .string(user.id), "email": .string(user.email), "email_verified": .bool(user.emailVerified),
            "disabled": .bool(user.disabled), "created_at": .integer(Int64(user.createdAt.timeIntervalSince1970)),
            "updated_at": .integer(Int64(user.updatedAt.timeIntervalSince1970)),
            "name": user.displayName.map(JSONValue.string) ?? .null,
        ]
        object["external_id"] = try await productUserIds.productUserId(userId: user.id).map(JSONValue.string) ?? .null
        return .object(object)
    }

    func enqueue(_ deliveries: [OutboundDelivery]) async {
        guard !deliveries.isEmpty else { return }
        do { try await store.enqueue(deliveries) } catch { onFailure(error) }
    }
}
