import Foundation
import GatehouseStore

/// String lists (redirect URIs, scopes, auth methods) stored as a JSON array in a TEXT column.
///
/// The SQLite backend writes the very same text, so a value means the same on both backends
/// and a database can be moved between them without rewriting lists.
enum PostgresStringList {
    /// `["a","b"]`; slashes are not escaped, so URIs stay readable in the database.
    static func encode(_ list: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(list) else { return "[]" }  // [String] always encodes
        return String(decoding: data, as: UTF8.self)
    }

    /// Throws `StoreError.failure` when the column does not hold a JSON array of strings.
    static func decode(_ text: String, column: String) throws -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw StoreError.failure(detail: "postgres: \(column) is not a JSON array of strings")
        }
    }
}
