import Foundation

/// The outcome of one `RateLimitStore.hit`.
public struct RateLimitDecision: Sendable, Equatable {
    /// True while the window's hit count (this one included) is at most the limit.
    public var allowed: Bool
    /// Hits counted in the current window, this one included (denied hits count too).
    public var count: Int
    /// Seconds until the window ends and hits are allowed again; 0 when allowed.
    /// Suitable for a `Retry-After` header (round up).
    public var retryAfter: TimeInterval

    public init(allowed: Bool, count: Int, retryAfter: TimeInterval) {
        self.allowed = allowed
        self.count = count
        self.retryAfter = retryAfter
    }
}
