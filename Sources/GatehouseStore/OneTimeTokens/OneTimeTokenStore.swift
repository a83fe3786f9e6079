import Foundation

/// Persistence of single-use tokens.
public protocol OneTimeTokenStore: Sendable {
    /// Stores a new unused token. Throws `StoreError.conflict` for a duplicate hash and
    /// `StoreError.notFound` if the user does not exist.
    func create(_ token: OneTimeToken) async throws

    /// Atomically marks the token used and returns it (with `usedAt == now`), if it exists, has
    /// this purpose, is unused and has not expired at `now`; otherwise nil. Of any number of
    /// concurrent callers — in this process or another — exactly one gets the token.
    func consume(hash: TokenHash, purpose: TokenPurpose, now: Date) async throws -> OneTimeToken?

    /// Deletes every token of `purpose` for the user (e.g. all reset links after a password
    /// change). Returns how many.
    @discardableResult
    func invalidateAll(userId: String, purpose: TokenPurpose) async throws -> Int

    /// Deletes up to `limit` tokens expired at `now`, used or not; returns how many.
    @discardableResult
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
