import Foundation
import GatehouseStore
import Synchronization

/// What the registered clients allow, re-read from the store at most every 30 s: their web origins
/// (for CORS), their grant types (for discovery's `grant_types_supported`) and where their redirect URIs
/// lead (for the pages' CSP `form-action`). A store that fails
/// answers as if no client were registered (no origin allowed), never an error for the request.
public final class WebOriginCache: Sendable {
    /// How long one read of the clients is answered from memory.
    public static let lifetime: TimeInterval = 30

    let store: any OAuthClientStore
    let clock: IdentityClock
    private let cached = Mutex<(origins: Set<String>, grants: Set<String>, formTargets: Set<String>, at: Date)?>(nil)
    private let refreshing = Mutex(false)

    public init(store: any OAuthClientStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Every web origin some registered client names.
    public func origins() async -> Set<String> { await snapshot().origins }

    /// Every grant type some registered client may use.
    public func grantTypes() async -> Set<String> { await snapshot().grants }

    /// The CSP sources of every place a registered client's redirect URIs (sign-in and logout) lead to, from
    /// the last read: response headers are built synchronously, so a read older than `lifetime` (or none yet)
    /// starts a re-read in the background and this answers what is known now. `refresh()` reads at once.
    public func formActionSources() -> Set<String> {
        let now = clock.now()
        let known = cached.withLock { $0 }
        if known == nil || now.timeIntervalSince(known!.at) >= Self.lifetime {
            let start = refreshing.withLock { busy -> Bool in
                if busy { return false }
                busy = true
                return true
            }
            if start { Task { await self.refresh(); self.refreshing.withLock { $0 = false } } }
        }
        return known?.formTargets ?? []
    }

    /// Reads the clients now (start-up, before the first page is served).
    public func refresh() async { _ = await read(at: clock.now()) }

    private func snapshot() async -> (origins: Set<String>, grants: Set<String>) {
        let now = clock.now()
        if let cached = cached.withLock({ $0 }), now.timeIntervalSince(cached.at) < Self.lifetime { return (cached.origins, cached.grants) }
        let read = await read(at: now)
        return (read.origins, read.grants)
    }

    private func read(at now: Date) async -> (origins: Set<String>, grants: Set<String>) {
        let clients = (try? await store.list()) ?? []
        let origins = Set(clients.flatMap(\.webOrigins)), grants = Set(clients.flatMap(\.grantTypes))
        let targets = Set(clients.flatMap { $0.redirectURIs + $0.postLogoutRedirectURIs }.compactMap(FormActionSource.of))
        cached.withLock { $0 = (origins, grants, targets, now) }
        return (origins, grants)
    }
}
