import Foundation
import GatehouseCrypto
import GatehouseStore

/// Sends an HTTP POST for the worker (the server implements it with URLSession, redirects refused).
public protocol OutboundTransport: Sendable {
    /// The response's status code; throws when no response arrived (refused, timed out).
    func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async throws -> Int
}

/// Works the outbound queue as a ``MaintenanceJob`` (so only the maintenance lease holder delivers):
/// claims due rows atomically, signs each at the attempt (webhook HMAC with a fresh timestamp; logout
/// token with fresh `iat`/`exp`, the same `jti`), POSTs it and removes it on a 2xx. Anything else is
/// retried after 5 s, 10 s, 20 s … doubling up to an hour, and dropped after ``maxAttempts`` (about
/// 12 hours of trying). At least once: a receiver may see a message twice and deduplicates by its id.
public struct OutboundDeliveryWorker: Sendable {
    let store: any OutboundDeliveryStore
    let clients: any OAuthClientStore
    let keys: SigningKeyRing
    let webhooks: [WebhookEndpoint]
    let transport: any OutboundTransport
    let clock: IdentityClock
    /// Called once per attempt with (delivery, outcome): `delivered`, `failed: reason`, `dropped: reason`.
    let onAttempt: @Sendable (OutboundDelivery, String) -> Void

    /// How long a claimed row stays away from other workers (longer than an attempt can take).
    public static let claimDuration: TimeInterval = 120
    /// Attempts before a delivery is given up.
    public static let maxAttempts = 22
    /// Logout tokens are valid for two minutes after signing (Back-Channel Logout 1.0 §2.4: short-lived).
    public static let logoutTokenLifetime: TimeInterval = 120

    /// - Parameters:
    ///   - store: the durable queue of deliveries.
    ///   - clients: where a logout token's client and its back-channel URL are read.
    public init(store: any OutboundDeliveryStore, clients: any OAuthClientStore, keys: SigningKeyRing, webhooks: [WebhookEndpoint],
                transport: any OutboundTransport, clock: IdentityClock = .system,
                onAttempt: @escaping @Sendable (OutboundDelivery, String) -> Void = { _, _ in }) {
        self.store = store; self.clients = clients
        self.keys = keys; self.webhooks = webhooks; self.transport = transport; self.clock = clock; self.onAttempt = onAttempt
    }

    /// The queue as a maintenance job.
    public var job: MaintenanceJob { MaintenanceJob(name: "outbound_deliveries") { _ in try await processDue() } }

    /// The delay before the next attempt after `attempts` failures: 5 s doubling, capped at one hour.
    public static func retryDelay(afterAttempts attempts: Int) -> TimeInterval {
        min(5 * pow(2, Double(min(max(attempts - 1, 0), 16))), 3600)
    }

    /// What went wrong with one attempt.
    enum Failure: Error {
        /// Worth another try (no answer, a non-2xx status).
        case retry(String)
        /// Never deliverable (the endpoint or client left the configuration, a corrupt row).
        case drop(String)
    }

    /// Claims and attempts the due deliveries; returns how many were delivered.
    @discardableResult
    public func processDue(limit: Int = 50) async throws -> Int {
        let due = try await store.claimDue(now: clock.now(), claimFor: Self.claimDuration, limit: limit)
        var delivered = 0
        // One failing receiver costs one attempt per run, not one timeout per queued message.
        var failing: Set<String> = []
        for delivery in due {
            if failing.contains(delivery.destination) {
                try? await store.reschedule(id: delivery.id, attempts: delivery.attempts,
                                            nextAttemptAt: clock.now().addingTimeInterval(Self.retryDelay(afterAttempts: 1)),
                                            lastError: "receiver failing")
                continue
            }
            do {
                try await attempt(delivery)
                _ = try await store.complete(id: delivery.id)
                onAttempt(delivery, "delivered")
                delivered += 1
            } catch let failure as Failure {
                switch failure {
                case .drop(let reason):
                    _ = try? await store.complete(id: delivery.id)
                    onAttempt(delivery, "dropped: " + reason)
                case .retry(let reason):
                    failing.insert(delivery.destination)
                    await reschedule(delivery, reason: reason)
                }
            } catch {
                failing.insert(delivery.destination)
                await reschedule(delivery, reason: "error")
            }
        }
        return delivered
    }

    func reschedule(_ delivery: OutboundDelivery, reason: String) async {
        let attempts = delivery.attempts + 1
        if attempts >= Self.maxAttempts {
            _ = try? await store.complete(id: delivery.id)
            onAttempt(delivery, "dropped: gave up after \(attempts) attempts (\(reason))")
            return
        }
        try? await store.reschedule(id: delivery.id, attempts: attempts,
                                    nextAttemptAt: clock.now().addingTimeInterval(Self.retryDelay(afterAttempts: attempts)),
                                    lastError: reason)
        onAttempt(delivery, "failed: " + reason)
    }

    /// Builds, signs and sends one delivery; returns normally on a 2xx.
    func attempt(_ delivery: OutboundDelivery) async throws {
        let (url, headers, body) = try await request(for: delivery)
        let status: Int
        do { status = try await transport.post(url, headers: headers, body: body) } catch {
            throw Failure.retry("no response")
        }
        guard (200..<300).contains(status) else { throw Failure.retry("HTTP \(status)") }
    }

    /// The request a delivery is sent as, signed now.
    func request(for delivery: OutboundDelivery) async throws -> (URL, [(String, String)], [UInt8]) {
        let now = clock.now()
        switch delivery.kind {
        case .webhook:
            guard let endpoint = webhooks.first(where: { $0.url.absoluteString == delivery.destination }) else {
                throw Failure.drop("webhook endpoint no longer configured")
            }
            let body = Array(delivery.payload.utf8)
            guard case .object(let object)? = JSONValue(parsing: body), case .string(let eventId)? = object["id"] else {
                throw Failure.drop("corrupt payload")
            }
            let timestamp = Int64(now.timeIntervalSince1970)
            return (endpoint.url, [
                ("Content-Type", "application/json"),
                (WebhookSignature.eventIdHeader, eventId),
                (WebhookSignature.timestampHeader, String(timestamp)),
                (WebhookSignature.signatureHeader, WebhookSignature.sign(body: body, timestamp: timestamp, secret: endpoint.secret)),
            ], body)
        case .backchannelLogout:
            guard let client = try await clients.find(id: delivery.destination),
                  let registration = BackchannelLogoutRegistration(metadata: client.metadata) else {
                throw Failure.drop("client no longer has a backchannel_logout_uri")
            }
            guard case .object(var claims)? = JSONValue(parsing: Array(delivery.payload.utf8)) else { throw Failure.drop("corrupt payload") }
            claims["iat"] = .integer(Int64(now.timeIntervalSince1970))
            claims["exp"] = .integer(Int64(now.timeIntervalSince1970 + Self.logoutTokenLifetime))
            let token = try LogoutToken.sign(claims, with: try await keys.signingKey(client.idTokenSigningAlgorithm))
            let body = "logout_token=" + token  // base64url and dots: nothing to percent-encode
            return (registration.uri, [("Content-Type", "application/x-www-form-urlencoded")], Array(body.utf8))
        }
    }
}

/// OpenID Connect Back-Channel Logout 1.0 §2.4 logout tokens: a JWT with `typ: logout+jwt`, the
/// back-channel event, `sub` and/or `sid`, and never a `nonce`.
public enum LogoutToken {
    public static let type = "logout+jwt"

    public static func sign(_ claims: [String: JSONValue], with key: GatehouseCrypto.SigningKey) throws -> String {
        var claims = claims
        claims["nonce"] = nil
        return try JWTSigner.sign(claims, with: key, type: type)
    }
}
