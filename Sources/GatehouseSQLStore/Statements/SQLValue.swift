import Foundation
import GatehouseStore

/// A statement parameter, in backend-neutral form; each backend binds it its own way
/// (SQLite: integers and blobs; PostgreSQL: text, booleans as `true`/`false`, bytes in binary).
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case bool(Bool)
    case text(String)
    case blob([UInt8])
}

/// Something that can be a statement parameter; lets store code pass model fields
/// (`String?`, `Date`, `TokenHash`) straight into `run` / `query`.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int32: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .bool(self) }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Array: SQLBindable where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
}

extension TokenHash: SQLBindable {
    public var sqlValue: SQLValue { .blob(bytes) }
}

/// Times are stored as integer milliseconds since the Unix epoch in both backends (INTEGER in
/// SQLite, BIGINT in PostgreSQL): portable, index-friendly, the same precision and ordering.
extension Date: SQLBindable {
    public var sqlValue: SQLValue { .integer(millisecondsSinceEpoch) }

    /// Rounded rather than truncated so a millisecond-exact Date survives the Double round trip.
    public var millisecondsSinceEpoch: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    public init(millisecondsSinceEpoch ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
