import Foundation

/// String lists (redirect URIs, scopes, auth methods) as every backend stores them: a JSON array in a
/// text column. One encoding for all backends, so a value means the same everywhere and a database
/// can move between backends without rewriting lists.
///
/// Short lists of plain ASCII (auth methods such as `["pwd"]`, read and written on every refresh) skip
/// Foundation's JSON coders, which cost more than the rest of decoding a row; the bytes are exactly
/// what the coders produce, and anything else goes through them.
public enum StoredStringList {
    /// `["a","b"]`; slashes are not escaped, so URIs stay readable in the database.
    public static func encode(_ list: [String]) -> String {
        if list.allSatisfy(isPlain) { return "[" + list.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(list) else { return "[]" }  // [String] always encodes
        return String(decoding: data, as: UTF8.self)
    }

    /// Throws `StoreError.failure` when the column does not hold a JSON array of strings.
    public static func decode(_ text: String, column: @autoclosure () -> String, backend: String) throws -> [String] {
        if let plain = plainList(text) { return plain }
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw StoreError.failure(detail: "\(backend): \(column()) is not a JSON array of strings")
        }
    }

    /// Printable ASCII without `"` and `\`: JSON writes such a string as it is.
    private static func isPlain(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// `[]` or `["a","b"]` exactly as `encode` writes plain strings (no spaces, no escapes); nil for
    /// anything else, which the JSON decoder then reads (or rejects).
    static func plainList(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        if bytes.count == 2 { return [] }
        var result: [String] = []
        var index = 1
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                let byte = bytes[end]
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            result.append(String(decoding: bytes[start..<end], as: UTF8.self))
            index = end + 1
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "]") { return index == bytes.count - 1 ? result : nil }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }
}
