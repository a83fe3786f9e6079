import Foundation
import GatehouseStore

/// Applies `RateLimitRule`s through the store, the strictest answer winning.
///
/// Two styles: `hit` counts every attempt (sign-up, reset mails); `wait` + `recordFailure` count only
/// failed attempts while refusing once the failures reach a limit (sign-in), so successes never use
/// up a shared address's allowance.
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

    /// How long `key` must wait because its counted failures already reached a rule's limit; nil when
    /// it may try. Counts nothing.
    public func wait(_ rules: [RateLimitRule], key: String) async throws -> TimeInterval? {
        var wait: TimeInterval?
        let now = clock.now()
        for rule in rules {
            guard let window = try await store.peek(bucket: rule.bucket, key: key, now: now), window.hits >= rule.limit else { continue }
            wait = max(wait ?? 0, window.end.timeIntervalSince(now))
        }
        return wait
    }

    /// Counts one failure against each rule for `key`.
    public func recordFailure(_ rules: [RateLimitRule], key: String) async throws {
        _ = try await hit(rules, key: key)
    }

    /// Forgets the attempts counted for `key` (after a success).
    public func reset(_ rules: [RateLimitRule], key: String) async throws {
        for rule in rules { try await store.reset(bucket: rule.bucket, key: key) }
    }
}
