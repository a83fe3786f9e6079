import GatehouseSQLStore
import Testing

/// The PostgreSQL backend numbers the `?` placeholders the shared stores write; a `?` inside a
/// literal, a quoted identifier or a comment must stay as it is.
@Suite("SQL placeholders")
struct SQLPlaceholdersTests {
    @Test("? becomes $1, $2, … in order", arguments: [
        ("SELECT 1", "SELECT 1"),
        ("SELECT a FROM t WHERE b = ? AND c > ?", "SELECT a FROM t WHERE b = $1 AND c > $2"),
        ("INSERT INTO t (a, b) VALUES (?, ?) RETURNING a", "INSERT INTO t (a, b) VALUES ($1, $2) RETURNING a"),
        ("SELECT '?' , ? FROM t", "SELECT '?' , $1 FROM t"),
        ("SELECT 'it''s ?', ? FROM \"we?ird\"", "SELECT 'it''s ?', $1 FROM \"we?ird\""),
        ("SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"),
        ("SELECT /* ? */ ?", "SELECT /* ? */ $1"),
        ("SELECT pg_advisory_xact_lock($1, 2)", "SELECT pg_advisory_xact_lock($1, 2)"),
        ("IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "IN ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"),
    ])
    func numbered(sql: String, expected: String) {
        #expect(SQLPlaceholders.numbered(sql) == expected)
    }

    @Test("Dialects differ only where the SQL must")
    func dialects() {
        #expect(SQLDialect.sqlite.forUpdate.isEmpty)
        #expect(SQLDialect.postgres.forUpdate == " FOR UPDATE")
        #expect(SQLDialect.sqlite.greatest == "MAX" && SQLDialect.postgres.greatest == "GREATEST")
    }

    @Test("A column enum gives the SQL names, the placeholders and the decoding index")
    func columns() {
        #expect(SampleColumn.list() == "id, display_name, sealed_refresh_token, created_at")
        #expect(SampleColumn.list(prefix: "t.") == "t.id, t.display_name, t.sealed_refresh_token, t.created_at")
        #expect(SampleColumn.placeholders == "?, ?, ?, ?")
        #expect(SampleColumn.createdAt.rawValue == 3, "the position in the list is the column index")
    }
}

private enum SampleColumn: Int32, SQLColumn {
    case id, displayName, sealedRefreshToken, createdAt
}
