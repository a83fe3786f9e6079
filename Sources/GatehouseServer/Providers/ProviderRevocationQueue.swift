import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// Revokes provider tokens upstream (Apple's `/auth/revoke`, required by App Store guideline 5.1.1(v)
/// when an account is deleted), retried with backoff until it succeeds; every outcome is audited.
///
/// The first attempt runs at once; later ones when ``processDue()`` runs (each Apple sign-in and
/// notification calls it; the server should also call it periodically).
struct ProviderRevocationQueue: Sendable {
    let database: any GatehouseDatabase
    let registry: ProviderRegistry
    let sealing: KeyEncryptionKey
    let clock: IdentityClock
    let audit: AuditTrail

    /// Revocations for the identities whose provider revokes and that hold a token.
    func prepare(_ identities: [ExternalIdentity]) throws -> [PendingRevocation] {
        try identities.compactMap { identity in
            guard identity.provider == "apple", registry.apple != nil, let sealed = identity.sealedRefreshToken else { return nil }
            let token = try sealing.open(sealed, keyID: ProviderFlowStore.tokenLabel(provider: identity.provider, subject: identity.subject))
            let id = RecordID.random()
            let now = clock.now()
            return PendingRevocation(id: id, provider: identity.provider, sealedToken: try sealing.seal(token, keyID: Self.label(id)),
                                     tokenTypeHint: "refresh_token", nextAttemptAt: now, createdAt: now)
        }
    }

    func enqueue(_ pending: [PendingRevocation], userId: String?, context: ClientContext) async {
        for revocation in pending {
            do { try await database.pendingRevocations.enqueue(revocation) } catch {
                await audit.record(.providerRevocationFailed, userId: userId, context: context,
                                   details: ["provider": revocation.provider, "revocation": revocation.id, "error": "could not queue"])
            }
        }
    }

    /// Attempts every revocation that is due; returns how many succeeded.
    @discardableResult
    func processDue(limit: Int = 20) async -> Int {
        guard let due = try? await database.pendingRevocations.due(now: clock.now(), limit: limit) else { return 0 }
        var succeeded = 0
        for revocation in due {
            let details = ["provider": revocation.provider, "revocation": revocation.id, "attempt": String(revocation.attempts + 1)]
            do {
                guard revocation.provider == "apple", let apple = registry.apple else {
                    throw ProviderError.misconfigured("\(revocation.provider) is not enabled")
                }
                let token = String(decoding: try sealing.open(revocation.sealedToken, keyID: Self.label(revocation.id)), as: UTF8.self)
                try await apple.revoke(refreshToken: token)
                _ = try await database.pendingRevocations.complete(id: revocation.id)
                await audit.record(.providerTokenRevoked, userId: nil, context: .unknown, details: details)
                succeeded += 1
            } catch {
                let attempts = revocation.attempts + 1
                // 30 s, 1 min, 2 min … capped at six hours: Apple outages are short, but never give up.
                let delay = min(30 * pow(2, Double(min(attempts - 1, 12))), 6 * 3600)
                let reason = (error as? ProviderError)?.auditReason ?? "error"
                try? await database.pendingRevocations.reschedule(id: revocation.id, attempts: attempts,
                                                                  nextAttemptAt: clock.now().addingTimeInterval(delay), lastError: reason)
                await audit.record(.providerRevocationFailed, userId: nil, context: .unknown, details: details.merging(["error": reason]) { $1 })
            }
        }
        return succeeded
    }

    static func label(_ id: String) -> String { "pending-revocation:" + id }
}
