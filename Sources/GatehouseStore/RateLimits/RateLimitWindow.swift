import Foundation

/// A live rate-limit window as `RateLimitStore.peek` reads it.
public struct RateLimitWindow: Sendable, Equatable {
    /// Hits counted in the window so far.
    public var hits: Int
    /// When the window ends (hits are forgotten then).
    public var end: Date

    public init(hits: Int, end: Date) { self.hits = hits; self.end = end }
}
