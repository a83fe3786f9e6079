import Foundation

/// Fixed-window rate-limit counters kept in the database, so limits hold across processes and
/// restarts.
///
/// A counter is identified by a `bucket` (what is limited, e.g. `"login"`) and a `key` (who,
/// e.g. an IP or a normalised email). Its window starts at the first hit after the previous
/// window ended and lasts `window` seconds.
public protocol RateLimitStore: Sendable {
    /// Counts one hit atomically and says whether it is within `limit` for the window.
    func hit(bucket: String, key: String, window: TimeInterval, limit: Int, now: Date) async throws
        -> RateLimitDecision

    /// Reads a counter without counting a hit: the hits of its current window and when that window
    /// ends, or nil when there is no counter or its window has ended. Lets callers count only
    /// failures while still refusing once a limit is reached.
    func peek(bucket: String, key: String, now: Date) async throws -> RateLimitWindow?

    /// Forgets the counter (e.g. after a successful sign-in).
    func reset(bucket: String, key: String) async throws

    /// Deletes up to `limit` counters whose window ended at or before `now`; returns how many.
    @discardableResult
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
