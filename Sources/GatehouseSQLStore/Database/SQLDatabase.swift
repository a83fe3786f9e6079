/// A pool of connections to one SQL database, as the shared stores see it.
///
/// The backends (`GatehouseSQLite`, `GatehousePostgres`) implement it with their own pools;
/// each body runs off the cooperative thread pool, on a connection it has to itself.
public protocol SQLDatabase: Sendable {
    associatedtype Connection: SQLConnection

    /// What differs between the backends' SQL.
    var dialect: SQLDialect { get }

    /// Runs read-only statements (SQLite: on a reader connection; PostgreSQL: autocommit).
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs a write: a single atomic statement, or several whose atomicity the body does not need
    /// (SQLite: in `BEGIN IMMEDIATE` on the one writer; PostgreSQL: autocommit, statement by statement).
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs several statements as one transaction, rolled back if the body throws (SQLite:
    /// `BEGIN IMMEDIATE` on the writer, which already serialises every writer of the process and
    /// locks out other processes; PostgreSQL: `BEGIN … COMMIT` under READ COMMITTED, so bodies
    /// that read-then-write lock their rows with `dialect.forUpdate`).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Runs `body` on the connection writes go through, without an enclosing transaction (the
    /// migrator manages its own).
    func withoutTransaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Releases the connections once their current work is done; later calls throw
    /// `StoreError.unavailable`. Idempotent.
    func close() async
}
