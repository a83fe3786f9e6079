/// How a bulk load into empty tables (`gatehouse user import` into a database with no accounts) sets their
/// secondary indexes aside and builds them again once the rows are in: one sorted build of each index
/// instead of a random B-tree insert per row, every changed page written once instead of once per batch.
public enum SQLIndexRebuild: Sendable {
    /// SQLite: the indexes whose CREATE statement `sqlite_schema` keeps. Those behind a PRIMARY KEY or
    /// UNIQUE column constraint keep none, cannot be dropped, and stay.
    case schemaTable
    /// PostgreSQL: the indexes `pg_indexes` lists, less those a constraint owns (primary keys, UNIQUE
    /// columns), and the tables' foreign keys: each checked row runs a `FOR KEY SHARE` lookup of the row it
    /// references, where adding the constraint back checks every row in one join (as `pg_restore` does).
    /// The transaction's `statement_timeout` is lifted: a GIN build of a million emails takes seconds,
    /// past the serving default of 5.
    case catalog

    /// An index or constraint set aside: its name, and the statements that drop it and build it again.
    public struct SetAside: Sendable, Equatable {
        public let name: String
        public let drop: String
        public let create: String
    }

    /// Drops the secondary indexes (and, on PostgreSQL, the foreign keys) of `tables` inside `db`'s transaction and returns them, to be built again
    /// with ``rebuild(_:_:)`` in the same transaction (a rollback brings them back as they were).
    func setAside(_ tables: [String], _ db: some SQLConnection) throws -> [SetAside] {
        let names = tables.map { "'\($0)'" }.joined(separator: ", ")  // the stores' own table names, never input
        func index(_ row: some SQLRow) -> SetAside {
            SetAside(name: row.text(0), drop: "DROP INDEX \(Self.quoted(row.text(0)))", create: row.text(1))
        }
        var listed: [SetAside]
        switch self {
        case .schemaTable:
            listed = try db.query("""
                SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name IN (\(names)) AND sql IS NOT NULL
                ORDER BY name
                """, [], index)
        case .catalog:
            _ = try db.run("SET LOCAL statement_timeout = 0", [])
            listed = try db.query("""
                SELECT i.indexname, i.indexdef FROM pg_indexes i
                WHERE i.schemaname = current_schema() AND i.tablename IN (\(names))
                    AND NOT EXISTS (SELECT 1 FROM pg_constraint c
                                    WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)
                ORDER BY i.indexname
                """, [], index)
            // Built again after the indexes: their checks then read the finished tables.
            listed += try db.query("""
                SELECT c.conname, t.relname, pg_get_constraintdef(c.oid) FROM pg_constraint c
                JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE c.contype = 'f' AND n.nspname = current_schema() AND t.relname IN (\(names))
                ORDER BY c.conname
                """, []) { row in
                let (name, table) = (Self.quoted(row.text(0)), Self.quoted(row.text(1)))
                return SetAside(name: row.text(0), drop: "ALTER TABLE \(table) DROP CONSTRAINT \(name)",
                                create: "ALTER TABLE \(table) ADD CONSTRAINT \(name) \(row.text(2))")
            }
        }
        for entry in listed { _ = try db.run(entry.drop, []) }
        return listed
    }

    /// Builds again what ``setAside(_:_:)`` dropped, in its order. A UNIQUE index whose rows now hold a
    /// duplicate, or a foreign key a row breaks, fails here, and the transaction with it.
    func rebuild(_ entries: [SetAside], _ db: some SQLConnection) throws {
        for entry in entries { _ = try db.run(entry.create, []) }
    }

    /// An identifier quoted for both backends (the catalogues' names are the migrations' own, but a name is
    /// never spliced unquoted).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
