import Foundation
import GatehouseStore

/// Read access to the current row of a result; valid only inside the row closure of
/// `SQLConnection.query` / `queryOne`. Backends implement the primitives; everything else
/// (dates, optionals, access by `SQLColumn`) is derived here once.
public protocol SQLRow {
    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    /// SQLite stores booleans as 0/1 integers, PostgreSQL as BOOLEAN; both read as Bool.
    func bool(_ column: Int32) -> Bool
    func text(_ column: Int32) -> String
    func blob(_ column: Int32) -> [UInt8]
}

extension SQLRow {
    public func int(_ column: Int32) -> Int { Int(int64(column)) }
    public func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    public func date(_ column: Int32) -> Date { Date(millisecondsSinceEpoch: int64(column)) }
    public func optionalDate(_ column: Int32) -> Date? { isNull(column) ? nil : date(column) }
    public func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
    public func tokenHash(_ column: Int32) -> TokenHash { TokenHash(blob(column)) }

    // Access by column: the column's position in its `SQLColumn` enum is its index in the SELECT.
    public func isNull(_ column: some SQLColumn) -> Bool { isNull(column.rawValue) }
    public func int64(_ column: some SQLColumn) -> Int64 { int64(column.rawValue) }
    public func int(_ column: some SQLColumn) -> Int { int(column.rawValue) }
    public func bool(_ column: some SQLColumn) -> Bool { bool(column.rawValue) }
    public func text(_ column: some SQLColumn) -> String { text(column.rawValue) }
    public func optionalText(_ column: some SQLColumn) -> String? { optionalText(column.rawValue) }
    public func blob(_ column: some SQLColumn) -> [UInt8] { blob(column.rawValue) }
    public func optionalBlob(_ column: some SQLColumn) -> [UInt8]? { optionalBlob(column.rawValue) }
    public func date(_ column: some SQLColumn) -> Date { date(column.rawValue) }
    public func optionalDate(_ column: some SQLColumn) -> Date? { optionalDate(column.rawValue) }
    public func tokenHash(_ column: some SQLColumn) -> TokenHash { tokenHash(column.rawValue) }
}

/// The columns of a row from `offset` on, numbered from 0: a joined SELECT decodes each table's part
/// with that table's one decoder (`UserSQL.decode(row.columns(from: 9))`).
public struct SQLRowSuffix<Base: SQLRow>: SQLRow {
    let base: Base
    let offset: Int32

    public func isNull(_ column: Int32) -> Bool { base.isNull(offset + column) }
    public func int64(_ column: Int32) -> Int64 { base.int64(offset + column) }
    public func bool(_ column: Int32) -> Bool { base.bool(offset + column) }
    public func text(_ column: Int32) -> String { base.text(offset + column) }
    public func blob(_ column: Int32) -> [UInt8] { base.blob(offset + column) }
}

extension SQLRow {
    /// The columns from `offset` on, as a row of their own.
    public func columns(from offset: Int32) -> SQLRowSuffix<Self> { SQLRowSuffix(base: self, offset: offset) }
}
