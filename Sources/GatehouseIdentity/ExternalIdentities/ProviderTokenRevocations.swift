import Foundation
import GatehouseCrypto
import GatehouseStore

/// The upstream side of a revocation (Apple's `/auth/revoke`), implemented by the Providers wiring.
public protocol ProviderTokenRevoker: Sendable {
    /// Whether tokens of `provider` are revoked upstream (only those are queued).
    func revokes(provider: String) -> Bool
    /// Revokes `refreshToken` as `clientID` (the client it was issued to; nil: the provider's web client) and
    /// returns the client id that succeeded; throws unless the provider confirmed it.
    func revoke(provider: String, refreshToken: String, clientID: String?) async throws -> String
    /// A short audit reason for a failed attempt (never the token).
    func failureReason(_ error: any Error) -> String
}

/// Revokes provider tokens upstream (required by App Store guideline 5.1.1(v) when an account is deleted
/// or Apple is unlinked). Requests only *enqueue* (``prepare(_:)`` then ``enqueue(_:userId:context:)``);
/// the maintenance job runner (``job``) works the queue under the maintenance lease, claiming rows
/// atomically so several processes never attempt the same one.
///
/// Each token is revoked as the client it was issued to (native Sign in with Apple: the app's bundle id),
/// and an answer that did not revoke it is a failure: retried after 30 s, 1 min, 2 min …
/// doubling up to six hours, never given up, every attempt audited.
public struct ProviderTokenRevocations: Sendable {
    let identities: any ExternalIdentityStore
    let queue: any PendingRevocationStore
    let revoker: any ProviderTokenRevoker
    let sealing: KeyEncryptionKey
    let clock: IdentityClock
    let audit: AuditTrail
    /// How long a claimed row stays away from other workers (longer than an attempt can take).
    public static let claimDuration: TimeInterval = 300

    /// - Parameters:
    ///   - identities: where an account's provider tokens are read from before its identities go.
    ///   - queue: the durable retry queue of revocations.
    ///   - sealing: the key provider tokens are sealed with (in identities and in the queue).
    public init(identities: any ExternalIdentityStore, queue: any PendingRevocationStore, revoker: any ProviderTokenRevoker,
                sealing: KeyEncryptionKey, clock: IdentityClock, audit: AuditTrail) {
        self.identities = identities; self.queue = queue; self.revoker = revoker; self.sealing = sealing; self.clock = clock; self.audit = audit
    }

    /// Revocations for the identities whose provider revokes and that hold a token (sealed anew for the queue,
    /// before the identity rows that hold them go).
    /// What `prepare` gives for every identity linked to `userId` (before the account is deleted).
    public func prepare(userId: String) async throws -> [PendingRevocation] {
        try prepare(try await identities.list(userId: userId))
    }

    public func prepare(_ identities: [ExternalIdentity]) throws -> [PendingRevocation] {
        try identities.compactMap { identity in
            guard revoker.revokes(provider: identity.provider), let sealed = identity.sealedRefreshToken else { return nil }
            let token = try sealing.open(sealed, keyID: ProviderTokenSealing.label(provider: identity.provider, subject: identity.subject))
            let id = RecordID.random()
            let now = clock.now()
            return PendingRevocation(id: id, provider: identity.provider, sealedToken: try sealing.seal(token, keyID: Self.label(id)),
                                     tokenTypeHint: "refresh_token", clientID: identity.tokenClientID, nextAttemptAt: now, createdAt: now)
        }
    }

    public func enqueue(_ pending: [PendingRevocation], userId: String?, context: ClientContext) async {
        for revocation in pending {
            do { try await queue.enqueue(revocation) } catch {
                await audit.record(.providerRevocationFailed, userId: userId, context: context,
                                   details: ["provider": revocation.provider, "revocation": revocation.id, "error": "could not queue"])
            }
        }
    }

    /// The queue as a maintenance job (run by whichever process holds the maintenance lease).
    public var job: MaintenanceJob {
        MaintenanceJob(name: "provider_revocations") { _ in await processDue() }
    }

    /// The delay before attempt `attempts + 1` after `attempts` failures: 30 s doubling, capped at six hours.
    public static func retryDelay(afterAttempts attempts: Int) -> TimeInterval {
        min(30 * pow(2, Double(min(max(attempts - 1, 0), 12))), 6 * 3600)
    }

    /// Claims and attempts the revocations that are due; returns how many were confirmed revoked.
    @discardableResult
    public func processDue(limit: Int = 20) async -> Int {
        guard let due = try? await queue.claimDue(now: clock.now(), claimFor: Self.claimDuration, limit: limit) else {
            return 0
        }
        var succeeded = 0
        for revocation in due {
            var details = ["provider": revocation.provider, "revocation": revocation.id, "attempt": String(revocation.attempts + 1)]
            do {
                let token = String(decoding: try sealing.open(revocation.sealedToken, keyID: Self.label(revocation.id)), as: UTF8.self)
                details["client_id"] = try await revoker.revoke(provider: revocation.provider, refreshToken: token, clientID: revocation.clientID)
                _ = try await queue.complete(id: revocation.id)
                await audit.record(.providerTokenRevoked, userId: nil, context: .unknown, details: details)
                succeeded += 1
            } catch {
                let attempts = revocation.attempts + 1
                let reason = revoker.failureReason(error)
                try? await queue.reschedule(
                    id: revocation.id, attempts: attempts,
                    nextAttemptAt: clock.now().addingTimeInterval(Self.retryDelay(afterAttempts: attempts)), lastError: reason)
                await audit.record(.providerRevocationFailed, userId: nil, context: .unknown, details: details.merging(["error": reason]) { $1 })
            }
        }
        return succeeded
    }

    static func label(_ id: String) -> String { "pending-revocation:" + id }
}
