import Foundation
import GatehouseStore
import Synchronization

/// The web origins registered by any client (for CORS), re-read from the store at most every 30 s.
final class WebOriginCache: Sendable {
    let store: any OAuthClientStore
    private let cached = Mutex<(origins: Set<String>, at: Date)?>(nil)

    init(store: any OAuthClientStore) { self.store = store }

    func origins() async -> Set<String> {
        if let cached = cached.withLock({ $0 }), Date().timeIntervalSince(cached.at) < 30 { return cached.origins }
        let origins = Set(((try? await store.list()) ?? []).flatMap(\.webOrigins))
        cached.withLock { $0 = (origins, Date()) }
        return origins
    }
}
