import Foundation

/// A message Gatehouse owes the product: a signed webhook or an OpenID Connect back-channel logout
/// token. Requests only enqueue these; the maintenance job runner delivers them (at least once) and
/// removes a row once the receiver answered 2xx.
///
/// The row holds what is needed to (re)build the request, never a secret: webhook bodies are signed
/// at each attempt with the endpoint's secret from configuration, and logout tokens are signed at each
/// attempt (fresh `iat`/`exp`, same `jti`) from the claims kept here. Like pending revocations, it has
/// no reference to `users`: the news of an account's deletion must outlive the account.
public struct OutboundDelivery: Sendable, Equatable {
    /// What kind of message `payload` is.
    public enum Kind: String, Sendable, Equatable {
        /// `payload` is the webhook's JSON body; `destination` the endpoint URL.
        case webhook
        /// `payload` is the logout token's claims (JSON); `destination` the client id.
        case backchannelLogout = "backchannel_logout"
    }

    public var id: String
    public var kind: Kind
    /// The webhook URL, or the client id whose `backchannel_logout_uri` receives the token.
    public var destination: String
    /// The event type (`user.deleted`, …; `logout` for logout tokens), for logs and the audit trail.
    public var eventType: String
    public var payload: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var createdAt: Date

    public init(id: String, kind: Kind, destination: String, eventType: String, payload: String, attempts: Int = 0,
                nextAttemptAt: Date, lastError: String? = nil, createdAt: Date) {
        self.id = id; self.kind = kind; self.destination = destination; self.eventType = eventType; self.payload = payload
        self.attempts = attempts; self.nextAttemptAt = nextAttemptAt; self.lastError = lastError; self.createdAt = createdAt
    }
}

/// The durable outbound-delivery queue (`outbound_deliveries`), shared by every process on a database.
public protocol OutboundDeliveryStore: Sendable {
    /// Adds deliveries in one transaction (all or none). Throws `StoreError.conflict` for a duplicate id.
    func enqueue(_ deliveries: [OutboundDelivery]) async throws
    /// Takes up to `limit` due deliveries, oldest first, for one worker: in the same step their next
    /// attempt moves to `now + claimFor`, so a concurrent claim never gets the same rows; a worker that
    /// dies leaves them due again later.
    func claimDue(now: Date, claimFor: TimeInterval, limit: Int) async throws -> [OutboundDelivery]
    /// Records a failed attempt and when to try next. Throws `StoreError.notFound` for an unknown id.
    func reschedule(id: String, attempts: Int, nextAttemptAt: Date, lastError: String) async throws
    /// Removes a delivered row; false if it was already gone.
    func complete(id: String) async throws -> Bool
    /// Every queued delivery, oldest first (operators and tests).
    func list(limit: Int) async throws -> [OutboundDelivery]
}
