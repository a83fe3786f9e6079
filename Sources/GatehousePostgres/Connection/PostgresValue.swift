import Foundation
import GatehouseStore

/// A value sent as a statement parameter.
///
/// Numbers and booleans travel in text format (the server parses them against the column's
/// type); bytes travel in binary format, so no hex escaping is needed and nothing is lost.
enum PostgresValue: Sendable, Equatable {
    case null
    case text(String)
    case bytes([UInt8])
}

/// Something that can be a statement parameter; lets store code pass model fields
/// (`String?`, `Date`, `TokenHash`) straight into `run`/`query`.
protocol PostgresBindable: Sendable {
    var postgresValue: PostgresValue { get }
}

extension PostgresValue: PostgresBindable {
    var postgresValue: PostgresValue { self }
}

extension Int64: PostgresBindable {
    var postgresValue: PostgresValue { .text(String(self)) }
}

extension Int: PostgresBindable {
    var postgresValue: PostgresValue { .text(String(self)) }
}

extension Int32: PostgresBindable {
    var postgresValue: PostgresValue { .text(String(self)) }
}

extension Bool: PostgresBindable {
    var postgresValue: PostgresValue { .text(self ? "true" : "false") }
}

extension String: PostgresBindable {
    var postgresValue: PostgresValue { .text(self) }
}

extension Array: PostgresBindable where Element == UInt8 {
    var postgresValue: PostgresValue { .bytes(self) }
}

extension TokenHash: PostgresBindable {
    var postgresValue: PostgresValue { .bytes(bytes) }
}

/// Times are BIGINT milliseconds since the Unix epoch, exactly as in the SQLite backend, so
/// both backends keep the same precision and ordering.
extension Date: PostgresBindable {
    var postgresValue: PostgresValue { .text(String(millisecondsSinceEpoch)) }

    var millisecondsSinceEpoch: Int64 {
        // Rounded rather than truncated so a millisecond-exact Date survives the Double round trip.
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(millisecondsSinceEpoch ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}
