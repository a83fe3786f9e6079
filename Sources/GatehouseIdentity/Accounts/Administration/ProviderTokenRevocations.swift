import GatehouseStore

/// The hook through which account administration hands provider tokens to the server's revocation
/// queue (the providers live above the identity core, so it cannot call them itself).
public struct ProviderTokenRevocations: Sendable {
    /// Seals the tokens of identities about to be removed into queue entries (call before the rows go).
    public let prepare: @Sendable ([ExternalIdentity]) throws -> [PendingRevocation]
    /// Queues them (call once the removal happened); `userId` is for the audit entry of a failure.
    public let enqueue: @Sendable ([PendingRevocation], _ userId: String?) async -> Void

    public init(prepare: @escaping @Sendable ([ExternalIdentity]) throws -> [PendingRevocation],
                enqueue: @escaping @Sendable ([PendingRevocation], _ userId: String?) async -> Void) {
        self.prepare = prepare; self.enqueue = enqueue
    }
}
