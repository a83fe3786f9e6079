import Foundation
import GatehouseStore
import Synchronization

/// What the registered clients allow, re-read from the store at most every 30 s: their web origins
/// (for CORS) and their grant types (for discovery's `grant_types_supported`).
final class WebOriginCache: Sendable {
    let store: any OAuthClientStore
    private let cached = Mutex<(origins: Set<String>, grants: Set<String>, at: Date)?>(nil)

    init(store: any OAuthClientStore) { self.store = store }

    func origins() async -> Set<String> { await snapshot().origins }

    /// Every grant type some registered client may use.
    func grantTypes() async -> Set<String> { await snapshot().grants }

    private func snapshot() async -> (origins: Set<String>, grants: Set<String>) {
        if let cached = cached.withLock({ $0 }), Date().timeIntervalSince(cached.at) < 30 { return (cached.origins, cached.grants) }
        let clients = (try? await store.list()) ?? []
        let origins = Set(clients.flatMap(\.webOrigins)), grants = Set(clients.flatMap(\.grantTypes))
        cached.withLock { $0 = (origins, grants, Date()) }
        return (origins, grants)
    }
}
