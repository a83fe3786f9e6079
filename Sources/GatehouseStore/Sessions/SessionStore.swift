import Foundation

/// Persistence of sessions. A session is valid while `now` is before both its idle and its
/// absolute expiry; expired sessions are invisible to lookups and removed by `purgeExpired`.
public protocol SessionStore: Sendable {
    /// Inserts a session. Throws `StoreError.conflict` for a duplicate hash and
    /// `StoreError.notFound` if the user does not exist.
    func create(_ session: Session) async throws

    /// The session with this hash if it is valid at `now`, else nil.
    func findValid(idHash: TokenHash, now: Date) async throws -> Session?

    /// Records activity: sets `lastSeenAt` and a new idle expiry, only if the session is still
    /// valid at `lastSeenAt`. Returns false when it was missing or already expired.
    @discardableResult
    func touch(idHash: TokenHash, lastSeenAt: Date, idleExpiresAt: Date) async throws -> Bool

    /// Ends one session (sign-out). Returns false if it did not exist.
    @discardableResult
    func delete(idHash: TokenHash) async throws -> Bool

    /// Ends every session of a user, except `keeping` (the current one, for "sign out other
    /// devices"). Returns how many ended.
    @discardableResult
    func deleteAll(userId: String, keeping: TokenHash?) async throws -> Int

    /// The user's sessions valid at `now`, most recently seen first.
    func list(userId: String, now: Date) async throws -> [Session]

    /// Deletes up to `limit` sessions expired at `now`; returns how many. Call repeatedly until
    /// it returns less than `limit`, so one purge never holds the write lock for long.
    @discardableResult
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
