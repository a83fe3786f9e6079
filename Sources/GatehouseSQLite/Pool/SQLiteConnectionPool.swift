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

    /// How long a read may run on the caller's thread before it is abandoned and run again on a
    /// reader's queue. Hot reads from the page cache take 5–50 µs; a read past this is rare (a cold
    /// page cache, a big listing), and it costs the cooperative pool at most this once.
    static let inlineBudgetNanoseconds: UInt64 = 2_000_000

    /// Runs a read-only body on a reader, or on the writer when there are no readers (in-memory
    /// databases, where a second connection would see a different database).
    ///
    /// When a reader is free at this instant the body runs right here, on the calling task's thread
    /// (bounded by `inlineBudgetNanoseconds`): two thread wake-ups cost more than the read itself.
    /// Otherwise — every reader busy, or the inline run abandoned — it goes to a reader's queue
    /// (round robin). Either way a reader is used by one thread at a time, and each statement reads
    /// the latest committed snapshot, as before.
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await writer.withConnection(body) }
        let ticket = Int(UInt(bitPattern: nextReader.wrappingAdd(1, ordering: .relaxed).oldValue) % UInt(readers.count))
        for offset in 0..<readers.count {
            let reader = readers[(ticket + offset) % readers.count]
            switch reader.runInline(budgetNanoseconds: Self.inlineBudgetNanoseconds, body) {
            case .done(let result): return try result.get()
            case .busy: continue
            // A long read would be long on any reader: straight to a queue, not inline again.
            case .abandoned: return try await reader.run(body)
            }
        }
        return try await readers[ticket].run(body)
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
