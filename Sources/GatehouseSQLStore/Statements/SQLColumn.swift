/// The columns of one table, in SELECT order: one list drives both the column list of the SQL
/// (`SELECT \(list)`, `INSERT (\(list)) VALUES (\(placeholders))`) and the row decoding
/// (`row.text(Column.email)` reads the column's position), so the two cannot drift apart.
///
/// Declare an `enum …: Int32, SQLColumn` with cases in table order and no explicit raw values;
/// a case's SQL name is its Swift name in snake case (`displayName` → `display_name`).
/// Compute `list` / `placeholders` once into a `static let` of a non-generic type: they build
/// strings, and the backends cache statements by SQL text.
public protocol SQLColumn: CaseIterable, Sendable where RawValue == Int32, Self: RawRepresentable {}

extension SQLColumn {
    /// The column's SQL name.
    public var name: String {
        var result = ""
        for character in String(describing: self) {
            if character.isUppercase {
                result.append("_")
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `a, b, c`, optionally each prefixed (`t.a, t.b, t.c`).
    public static func list(prefix: String = "") -> String {
        allCases.map { prefix + $0.name }.joined(separator: ", ")
    }

    /// `?, ?, ?`: one placeholder per column, for an INSERT of every column.
    public static var placeholders: String {
        allCases.map { _ in "?" }.joined(separator: ", ")
    }
}
