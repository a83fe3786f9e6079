/// One database connection as the stores see it, used by one operation at a time.
///
/// Every statement is written once with `?` placeholders (see `SQLDialect`); parameters are
/// bound, never spliced into the SQL. Backends cache prepared statements by SQL text, so store
/// code keeps its SQL in constants rather than building it per call.
public protocol SQLConnection {
    associatedtype Row: SQLRow

    /// Runs a statement that returns no rows of interest; returns the number of changed rows.
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLBindable]) throws -> Int

    /// Runs a query and maps every row.
    func query<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (Row) throws -> T) throws -> [T]

    /// Runs a query and maps its first row, or returns nil.
    func queryOne<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (Row) throws -> T) throws -> T?

    /// Frees the pages this connection keeps cached, after a one-off scan of pages no request reads again
    /// (SQLite: its page cache; PostgreSQL caches in the server, so nothing to do here).
    func releaseCachedPages()
}

extension SQLConnection {
    public func releaseCachedPages() {}
}
