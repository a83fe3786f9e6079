import Foundation

/// String lists (redirect URIs, scopes, auth methods) as every backend stores them: a JSON array in a
/// text column. One encoding for all backends, so a value means the same everywhere and a database
/// can move between backends without rewriting lists.
public enum StoredStringList {
    /// `["a","b"]`; slashes are not escaped, so URIs stay readable in the database.
    public static func encode(_ list: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(list) else { return "[]" }  // [String] always encodes
        return String(decoding: data, as: UTF8.self)
    }

    /// Throws `StoreError.failure` when the column does not hold a JSON array of strings.
    public static func decode(_ text: String, column: String, backend: String) throws -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch {
            throw StoreError.failure(detail: "\(backend): \(column) is not a JSON array of strings")
        }
    }
}
