import GatehouseIdentity
import GatehouseProviders

/// The upstream half of ``ProviderTokenRevocations``: Apple's `/auth/revoke` through the registry.
struct RegistryTokenRevoker: ProviderTokenRevoker {
    let registry: ProviderRegistry

    func revokes(provider: String) -> Bool { provider == "apple" && registry.apple != nil }

    func revoke(provider: String, refreshToken: String, clientID: String?) async throws -> String {
        guard provider == "apple", let apple = registry.apple else { throw ProviderError.misconfigured("\(provider) is not enabled") }
        // The recorded client first; the team's other clients too, so a token recorded under the wrong
        // client (or before clients were recorded) is still revoked and proven dead.
        try await apple.revoke(refreshToken: refreshToken, clientIDs: (clientID.map { [$0] } ?? []) + apple.candidateClientIDs)
        return clientID ?? apple.settings.clientID
    }

    func failureReason(_ error: any Error) -> String { (error as? ProviderError)?.auditReason ?? "error" }
}
