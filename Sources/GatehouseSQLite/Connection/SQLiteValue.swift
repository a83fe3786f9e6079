import Foundation
import GatehouseStore

/// A value bound to a statement parameter.
enum SQLiteValue: Sendable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// Something that can be bound as a statement parameter; lets store code pass model fields
/// (`String?`, `Date`, `TokenHash`) straight into `run`/`query`.
protocol SQLiteBindable: Sendable {
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    var sqliteValue: SQLiteValue { self }
}

extension Int64: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Bool: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension String: SQLiteBindable {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension Array: SQLiteBindable where Element == UInt8 {
    var sqliteValue: SQLiteValue { .blob(self) }
}

extension TokenHash: SQLiteBindable {
    var sqliteValue: SQLiteValue { .blob(bytes) }
}

/// Times are stored as integer milliseconds since the Unix epoch (portable, index-friendly,
/// and the same representation the PostgreSQL backend uses in BIGINT columns).
extension Date: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(millisecondsSinceEpoch) }

    var millisecondsSinceEpoch: Int64 {
        // Rounded rather than truncated so a millisecond-exact Date survives the Double round trip.
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(millisecondsSinceEpoch ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
