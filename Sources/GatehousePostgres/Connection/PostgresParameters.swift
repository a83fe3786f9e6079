import Foundation
import GatehouseStore

/// Statement parameters laid out as the C arrays `PQexecPrepared` takes.
///
/// Text values are NUL-terminated copies (format 0); bytes are sent in binary format (1) with
/// an explicit length; NULL is a null pointer. The copies live only for the `withArrays` call.
struct PostgresParameters {
    let values: [PostgresValue]

    /// Throws `StoreError.invalidArgument` for text with a NUL character: PostgreSQL text cannot
    /// hold one, and a C string would silently cut the value short.
    init(_ values: [PostgresValue]) throws {
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
        for value in values {
            switch value {
            case .null:
                pointers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .text(let string):
                pointers.append(strdup(string))
                lengths.append(Int32(string.utf8.count))
                formats.append(0)
            case .bytes(let bytes):
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
