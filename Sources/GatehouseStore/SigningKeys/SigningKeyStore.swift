import Foundation

/// Persistence of the server's signing keys. Times are stored at millisecond precision.
public protocol SigningKeyStore: Sendable {
    /// Inserts a new key. Throws `StoreError.conflict` if the kid exists.
    func insert(_ key: SigningKey) async throws

    /// Every stored key (active, future and retired), oldest `createdAt` first; the caller picks
    /// the signing key and the JWKS set from this short list.
    func list() async throws -> [SigningKey]

    /// The key with this kid, or nil.
    func find(kid: String) async throws -> SigningKey?

    /// Marks a key retired at `at` and published until `publishUntil`.
    /// Throws `StoreError.notFound` for an unknown kid.
    func retire(kid: String, at: Date, publishUntil: Date) async throws

    /// Deletes keys whose `publishUntil` is before `now`; returns how many went.
    @discardableResult
    func deleteExpired(now: Date) async throws -> Int
}
