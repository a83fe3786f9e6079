import Foundation

/// An append-only security log.
public protocol AuditLogStore: Sendable {
    /// Appends an event; returns its sequence number.
    @discardableResult
    func append(_ event: AuditEvent) async throws -> Int64

    /// Appends `events` in order, in one write (a bulk import's entries, thousands at a time).
    func appendAll(_ events: [AuditEvent]) async throws

    /// The user's most recent events, newest first, at most `limit` (1…1000).
    func list(userId: String, limit: Int) async throws -> [AuditRecord]

    /// Events matching every condition of `query`, newest first, at most `query.limit` (1…1000).
    func search(_ query: AuditQuery) async throws -> [AuditRecord]

    /// Number of events, of one user or (nil) of everyone.
    func count(userId: String?) async throws -> Int

    /// Retention: deletes up to `limit` events that occurred before `cutoff`; returns how many.
    @discardableResult
    func purge(olderThan cutoff: Date, limit: Int) async throws -> Int
}
