import Foundation
import GatehouseStore

/// Applies `RateLimitRule`s through the store. Every rule is hit (so each window keeps counting) and
/// the strictest answer wins.
public struct RateLimiter: Sendable {
    let store: any RateLimitStore
    let clock: IdentityClock

    public init(store: any RateLimitStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Counts one attempt against each rule for `key`; returns how long to wait when any rule is exceeded.
    public func hit(_ rules: [RateLimitRule], key: String) async throws -> TimeInterval? {
        var wait: TimeInterval?
        let now = clock.now()
        for rule in rules {
            let decision = try await store.hit(bucket: rule.bucket, key: key, window: rule.window, limit: rule.limit, now: now)
            if !decision.allowed { wait = max(wait ?? 0, decision.retryAfter) }
        }
        return wait
    }

    /// Forgets the attempts counted for `key` (after a success).
    public func reset(_ rules: [RateLimitRule], key: String) async throws {
        for rule in rules { try await store.reset(bucket: rule.bucket, key: key) }
    }
}
