import Foundation
import GatehouseStore

/// The account page's "revoke" of an application: its remembered consent, every grant it holds and the
/// access tokens they produced, then an audit entry.
public struct ApplicationAccessRevocation: Sendable {
    let consents: any ConsentStore
    let revocation: TokenRevocation
    let audit: AuditTrail

    public init(consents: any ConsentStore, revocation: TokenRevocation, audit: AuditTrail) {
        self.consents = consents; self.revocation = revocation; self.audit = audit
    }

    public func revoke(userId: String, clientId: String, context: ClientContext) async throws {
        _ = try await consents.revoke(userId: userId, clientId: clientId)
        try await revocation.revokeClient(userId: userId, clientId: clientId)
        await audit.record(.appAccessRevoked, userId: userId, context: context, details: ["client_id": clientId])
    }
}
