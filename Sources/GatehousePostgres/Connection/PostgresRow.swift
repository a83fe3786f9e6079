import CLibPQ
import GatehouseSQLStore

/// Read access to one row of a result fetched in binary format; valid only inside the row closure.
///
/// Binary results give raw bytes for `bytea` and `text` (no hex decoding) and big-endian
/// integers, whose width depends on the column type (`COUNT(*)` is int8, a literal `1` int4).
struct PostgresRow: SQLRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int32) -> Bool {
        PQgetisnull(result, row, column) == 1
    }

    private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(PQgetlength(result, row, column))
        guard count > 0, let pointer = PQgetvalue(result, row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    func int64(_ column: Int32) -> Int64 {
        let raw = bytes(column)
        var value: Int64 = 0
        for byte in raw { value = value << 8 | Int64(byte) }
        // Sign-extend int2/int4 values.
        let bits = raw.count * 8
        if bits > 0 && bits < 64 && value & (1 << (bits - 1)) != 0 { value -= 1 << bits }
        return value
    }

    func bool(_ column: Int32) -> Bool {
        bytes(column).first.map { $0 != 0 } ?? false
    }

    func text(_ column: Int32) -> String {
        String(decoding: bytes(column), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8] {
        Array(bytes(column))
    }
}
