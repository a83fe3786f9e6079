import Foundation

/// Named, time-limited leases shared by every process on one database: at most one holder per
/// name at a time, for work that must run in one place (background maintenance).
///
/// A lease is taken with one atomic upsert, so two processes racing for a free or expired lease
/// cannot both win. It is not a lock in the strict sense: a holder that stalls past its `ttl`
/// loses the lease to another, so the work it guards must be safe to run twice (purging is).
public protocol LeaseStore: Sendable {
    /// Takes the lease `name` for `holder` until `now + ttl` when it is free, expired or
    /// already held by `holder` (which renews it). Returns whether `holder` holds it now.
    func acquire(name: String, holder: String, ttl: TimeInterval, now: Date) async throws -> Bool

    /// Gives the lease up if `holder` holds it, so another process can take it at once;
    /// does nothing otherwise.
    func release(name: String, holder: String) async throws
}
