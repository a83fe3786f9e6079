import Foundation

/// The one error type every store backend throws.
///
/// Cases carry no backend text in their public rendering: `description` is safe to show in an
/// HTTP body, while `detail` keeps the backend's own message (SQL error text, constraint
/// names) for logs only.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// A uniqueness rule was violated (duplicate email, duplicate key id, duplicate hash).
    case conflict(detail: String)
    /// The row to change does not exist, or a row it refers to (e.g. the session's user) does not.
    case notFound(detail: String)
    /// The database was migrated by a newer build; this build must not touch it.
    case schemaTooNew(found: Int, supported: Int)
    /// The database is older than this build needs; run `migrate()` first.
    case schemaOutdated(found: Int, required: Int)
    /// The database could not be reached, was closed, or stayed locked beyond the timeout.
    case unavailable(detail: String)
    /// The location or configuration given to the opener is not usable.
    case invalidConfiguration(detail: String)
    /// An argument the store cannot use (e.g. a malformed page cursor from a query string).
    case invalidArgument(detail: String)
    /// Anything else the backend reported (I/O error, corrupt row, bug).
    case failure(detail: String)

    /// The case without its payload, for `switch`/`==` in callers and tests.
    public enum Kind: Sendable, Equatable {
        case conflict, notFound, schemaTooNew, schemaOutdated, unavailable, invalidConfiguration, invalidArgument, failure
    }

    public var kind: Kind {
        switch self {
        case .conflict: .conflict
        case .notFound: .notFound
        case .schemaTooNew: .schemaTooNew
        case .schemaOutdated: .schemaOutdated
        case .unavailable: .unavailable
        case .invalidConfiguration: .invalidConfiguration
        case .invalidArgument: .invalidArgument
        case .failure: .failure
        }
    }

    /// Backend detail for logs. Never render this to a client.
    public var detail: String {
        switch self {
        case .conflict(let d), .notFound(let d), .unavailable(let d), .invalidConfiguration(let d),
             .invalidArgument(let d), .failure(let d):
            d
        case .schemaTooNew(let found, let supported):
            "database schema version \(found) is newer than this build supports (\(supported))"
        case .schemaOutdated(let found, let required):
            "database schema version \(found) is older than required (\(required)); run migrate"
        }
    }

    /// A short message free of backend internals, so interpolating the error is safe.
    public var description: String {
        switch self {
        case .conflict: "store conflict: the record already exists"
        case .notFound: "store: record not found"
        case .schemaTooNew(let found, let supported):
            "database schema version \(found) is newer than this build supports (\(supported))"
        case .schemaOutdated(let found, let required):
            "database schema version \(found) is older than required (\(required))"
        case .unavailable: "store unavailable"
        case .invalidConfiguration: "store configuration invalid"
        case .invalidArgument: "store: invalid argument"
        case .failure: "store failure"
        }
    }
}
