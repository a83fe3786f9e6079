import Foundation

/// What a `migrate()` call did.
public struct MigrationReport: Sendable, Equatable {
    /// Schema version before the call (0 for an empty database).
    public var fromVersion: Int
    /// Schema version after the call.
    public var toVersion: Int
    /// Versions applied by this call, in order; empty when the database was already current.
    public var applied: [Int]

    public init(fromVersion: Int, toVersion: Int, applied: [Int]) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.applied = applied
    }
}
