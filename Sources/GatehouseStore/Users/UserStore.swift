import Foundation

/// Persistence of accounts.
public protocol UserStore: Sendable {
    /// Inserts a user. Throws `StoreError.conflict` if the email (or id) is taken.
    func create(_ user: User) async throws

    func find(id: String) async throws -> User?

    /// Looks up by the normalised email (exact match).
    func find(email: String) async throws -> User?

    /// Applies `changes` and sets `updatedAt` to `at`, returning the updated user.
    /// Throws `StoreError.notFound` for an unknown id, `.conflict` if a new email is taken.
    @discardableResult
    func update(id: String, _ changes: [UserChange], at: Date) async throws -> User

    /// Deletes the user and, by cascade, their sessions and one-time tokens.
    /// Returns false if there was no such user.
    @discardableResult
    func delete(id: String) async throws -> Bool

    /// Users in creation order, `limit` (1…1000) at a time. Pass the previous page's
    /// `nextCursor` as `after` to continue; a malformed cursor throws `StoreError.invalidArgument`.
    func list(after cursor: String?, limit: Int) async throws -> Page<User>

    func count() async throws -> Int

    /// Voids every access token of the user issued before `instant`: the mark only moves forward (an older
    /// instant changes nothing). Returns false when there is no such user.
    @discardableResult
    func voidTokens(userId: String, issuedBefore instant: Date) async throws -> Bool

    /// The instant before which the user's access tokens are void; nil when never set or no such user.
    func tokensNotBefore(userId: String) async throws -> Date?

    /// The highest cost of the stored bcrypt password hashes (imports); nil when there are none.
    func bcryptCostInUse() async throws -> Int?
}
