/// What really differs between the SQL of the two backends. Everything else — upserts
/// (`ON CONFLICT … DO UPDATE`, `excluded.`), `RETURNING`, row values, `CAST`, `TRUE`/`FALSE` —
/// is written once and runs on both.
///
/// Placeholders: statements are written with `?`. SQLite takes them as they are; the
/// PostgreSQL connection rewrites them to `$1, $2, …` (`SQLPlaceholders.numbered`) once, when it
/// prepares a statement it has not seen, so there is no per-call string work.
public struct SQLDialect: Sendable, Equatable {
    /// `sqlite` or `postgres`, for error details.
    public let name: String
    /// Appended to a SELECT inside `SQLDatabase.transaction` that reads rows it will then change:
    /// ` FOR UPDATE` on PostgreSQL; empty on SQLite, whose write transaction already excludes
    /// every other writer.
    public let forUpdate: String
    /// Appended to a sub-select that claims rows: ` FOR UPDATE SKIP LOCKED` on PostgreSQL, so
    /// concurrent claimers take different rows; empty on SQLite (one writer).
    public let forUpdateSkipLocked: String
    /// The scalar "larger of two values": `MAX` in SQLite, `GREATEST` in PostgreSQL.
    public let greatest: String
    /// Whether `WITH … AS (UPDATE … RETURNING …)` works (PostgreSQL), letting a store do a
    /// read-modify-write in one round trip; SQLite has no data-modifying CTEs.
    public let writableCTEs: Bool

    public static let sqlite = SQLDialect(name: "sqlite", forUpdate: "", forUpdateSkipLocked: "", greatest: "MAX",
                                          writableCTEs: false)
    public static let postgres = SQLDialect(name: "postgres", forUpdate: " FOR UPDATE",
                                            forUpdateSkipLocked: " FOR UPDATE SKIP LOCKED", greatest: "GREATEST",
                                            writableCTEs: true)
}
