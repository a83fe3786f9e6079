import Foundation
import GatehouseStore
import Synchronization

/// What the registered clients allow, re-read from the store at most every 30 s: their web origins
/// (for CORS) and their grant types (for discovery's `grant_types_supported`). A store that fails
/// answers as if no client were registered (no origin allowed), never an error for the request.
public final class WebOriginCache: Sendable {
    /// How long one read of the clients is answered from memory.
    public static let lifetime: TimeInterval = 30

    let store: any OAuthClientStore
    let clock: IdentityClock
    private let cached = Mutex<(origins: Set<String>, grants: Set<String>, at: Date)?>(nil)

    public init(store: any OAuthClientStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Every web origin some registered client names.
    public func origins() async -> Set<String> { await snapshot().origins }

    /// Every grant type some registered client may use.
    public func grantTypes() async -> Set<String> { await snapshot().grants }

    private func snapshot() async -> (origins: Set<String>, grants: Set<String>) {
        let now = clock.now()
        if let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.at) < Self.lifetime { return (cached.origins, cached.grants) }
        let clients = (try? await store.list()) ?? []
        let origins = Set(clients.flatMap(\.webOrigins)), grants = Set(clients.flatMap(\.grantTypes))
        cached.withLock { $0 = (origins, grants, now) }
        return (origins, grants)
    }
}
