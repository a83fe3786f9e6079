import GatehouseSQLStore
import Synchronization

/// One writer connection and a few reader connections to the same database.
///
/// All writes of a process go through the single writer (`SQLiteWriter`, group commit), so they
/// are serialised before they reach SQLite and never see SQLITE_BUSY from each other;
/// `busy_timeout` only has to cover other processes. In WAL mode readers never block the writer
/// or each other.
final class SQLiteConnectionPool: SQLDatabase {
    private let writer: SQLiteWriter
    private let readers: [SQLiteConnectionQueue]
    private let nextReader = Atomic<Int>(0)

    init(writer: SQLiteWriter, readers: [SQLiteConnectionQueue]) {
        self.writer = writer
        self.readers = readers
    }

    /// Runs a read-only body on a reader (round robin), or on the writer when there are no
    /// readers (in-memory databases, where a second connection would see a different database).
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await writer.withConnection(body) }
        let ticket = UInt(bitPattern: nextReader.wrappingAdd(1, ordering: .relaxed).oldValue)
        return try await readers[Int(ticket % UInt(readers.count))].run(body)
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the writer (possibly shared with other
    /// writes, each in its own savepoint); returns after the commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.write(body)
    }

    /// The same as `write`: one `BEGIN IMMEDIATE` transaction on the single writer already
    /// excludes every other writer, in this process and in others.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await write(body)
    }

    var dialect: SQLDialect { .sqlite }

    /// On the writer: the migrator manages its own transactions.
    func withoutTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withWriter(body)
    }

    /// Runs `body` on the writer without an enclosing transaction (the migrator manages its own).
    func withWriter<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.withConnection(body)
    }

    func close() async {
        for reader in readers { await reader.close() }
        await writer.close()
    }
}
