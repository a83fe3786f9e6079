/// The words of DDL that differ between the backends, so each migration is written once (a type map,
/// as Dex keeps one): everything else in `StoreMigrations` runs on both as it stands.
public struct SQLSchemaTypes: Sendable {
    /// A column compared byte for byte (ids, emails, keys): SQLite's TEXT already compares bytes;
    /// PostgreSQL's needs the "C" collation, whatever the database's default.
    public let key: String
    /// Integers and times (milliseconds since the epoch): STRICT SQLite knows only INTEGER.
    public let integer: String
    /// Hashes and sealed secrets.
    public let bytes: String
    public let boolean: String
    /// The boolean `false` as a column default.
    public let falseDefault: String
    /// An auto-numbered primary key.
    public let sequence: String
    /// After a table's closing parenthesis: SQLite's STRICT type checks.
    public let table: String
    /// The same for a table keyed by its primary key alone: STRICT and WITHOUT ROWID on SQLite.
    public let keyedTable: String
    /// The DDL of the index behind the administrators' email search (`EmailSearchIndex`): it differs
    /// whole between the backends, not word by word.
    public let emailSearchIndex: String

    public static let sqlite = SQLSchemaTypes(
        key: "TEXT", integer: "INTEGER", bytes: "BLOB", boolean: "INTEGER", falseDefault: "0",
        sequence: "INTEGER PRIMARY KEY AUTOINCREMENT", table: " STRICT", keyedTable: " STRICT, WITHOUT ROWID",
        emailSearchIndex: EmailSearchIndex.sqlite)
    public static let postgres = SQLSchemaTypes(
        key: "TEXT COLLATE \"C\"", integer: "BIGINT", bytes: "BYTEA", boolean: "BOOLEAN", falseDefault: "FALSE",
        sequence: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", table: "", keyedTable: "",
        emailSearchIndex: EmailSearchIndex.postgres)
}
