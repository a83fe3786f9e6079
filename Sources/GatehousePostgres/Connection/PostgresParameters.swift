import Foundation
import GatehouseSQLStore
import GatehouseStore

/// Statement parameters laid out as the C arrays `PQexecPrepared` takes.
///
/// Numbers and booleans travel as text (format 0; the server parses them against the column's
/// type), text as NUL-terminated copies; bytes in binary format (1) with an explicit length, so
/// no hex escaping is needed and nothing is lost; NULL is a null pointer. The copies live only for the `withArrays` call.
struct PostgresParameters {
    let values: [SQLValue]

    /// Throws `StoreError.invalidArgument` for text with a NUL character: PostgreSQL text cannot
    /// hold one, and a C string would silently cut the value short.
    init(_ values: [SQLValue]) throws {
        for value in values {
            if case .text(let string) = value, string.utf8.contains(0) {
                throw StoreError.invalidArgument(detail: "postgres: text parameter contains a NUL character")
            }
        }
        self.values = values
    }

    func withArrays<R>(_ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                UnsafePointer<Int32>?) throws -> R) rethrows -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { pointers.forEach { free($0) } }
        func appendText(_ string: String) {
            pointers.append(strdup(string))
            lengths.append(Int32(string.utf8.count))
            formats.append(0)
        }
        for value in values {
            switch value {
            case .null:
                pointers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let number):
                appendText(String(number))
            case .bool(let flag):
                appendText(flag ? "true" : "false")
            case .text(let string):
                appendText(string)
            case .blob(let bytes):
                // Never a null pointer, even when empty: NULL would mean SQL NULL, not ''::bytea.
                let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count) }
                }
                pointers.append(buffer)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        let constPointers = pointers.map { UnsafePointer($0) }
        return try constPointers.withUnsafeBufferPointer { valueArray in
            try lengths.withUnsafeBufferPointer { lengthArray in
                try formats.withUnsafeBufferPointer { formatArray in
                    try body(Int32(values.count), valueArray.baseAddress, lengthArray.baseAddress, formatArray.baseAddress)
                }
            }
        }
    }
}
