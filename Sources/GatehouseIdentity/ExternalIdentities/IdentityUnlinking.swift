import Foundation
import GatehouseStore

/// Removing one linked sign-in method from an account, for the account page and the admin API alike:
/// never the account's last way in (decided by the store in the same step as the delete, so two unlinks
/// racing each other cannot both pass a count), audited, and the provider's token queued for revocation
/// (only queued: the maintenance job revokes upstream, never the request).
public struct IdentityUnlinking: Sendable {
    let identities: any ExternalIdentityStore
    let audit: AuditTrail
    let revocations: ProviderTokenRevocations?

    /// What an unlink did.
    public enum Outcome: Sendable, Equatable {
        case unlinked
        /// Refused: it is the account's only way to sign in.
        case lastMethod
        /// No such identity is linked to the account.
        case notLinked
    }

    public init(identities: any ExternalIdentityStore, audit: AuditTrail, revocations: ProviderTokenRevocations?) {
        self.identities = identities; self.audit = audit; self.revocations = revocations
    }

    /// Unlinks (`provider`, `subject`) from `userId`. `actor` names the administrator (nil: the account holder).
    public func unlink(userId: String, provider: String, subject: String, by actor: String? = nil,
                       context: ClientContext) async throws -> Outcome {
        guard let identity = try await identities.find(provider: provider, subject: subject), identity.userId == userId else {
            return .notLinked
        }
        // Sealed before the row goes (the token lives in it), queued only once the delete happened.
        let pending = (try? revocations?.prepare([identity])) ?? []
        switch try await identities.deleteUnlessLastMethod(provider: provider, subject: subject, userId: userId) {
        case .deleted:
            var details = ["provider": provider]
            if let actor { details["by"] = actor }
            await audit.record(.identityUnlinked, userId: userId, context: context, details: details)
            await revocations?.enqueue(pending, userId: userId, context: context)
            return .unlinked
        case .lastMethod:
            return .lastMethod
        case .notFound:
            return .notLinked
        }
    }
}
