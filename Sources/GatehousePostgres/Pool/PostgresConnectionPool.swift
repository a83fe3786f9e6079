import GatehouseSQLStore
import GatehouseStore
import Synchronization

/// A fixed number of connection slots, each used by one operation at a time.
///
/// An operation leases a free slot, runs on that slot's queue, and returns it. When every slot
/// is busy the operation waits in a FIFO queue of continuations — suspended, so no thread of
/// the cooperative pool is held while waiting — and the next released slot goes to the
/// longest waiter.
final class PostgresConnectionPool: SQLDatabase {
    private struct State {
        var free: [Int]
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var closed = false
    }

    private let slots: [PostgresConnectionSlot]
    private let state: Mutex<State>

    init(configuration: PostgresConfiguration) {
        slots = (0..<configuration.poolSize).map { PostgresConnectionSlot(index: $0, configuration: configuration) }
        // Reversed so popLast() hands out slot 0 first: few slots stay warm under light load.
        state = Mutex(State(free: Array(slots.indices.reversed())))
    }

    /// Runs `body` on a leased connection (autocommit: each statement is its own transaction).
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let index = try await acquire()
        defer { release(index) }
        return try await slots[index].run(body)
    }

    var dialect: SQLDialect { .postgres }

    /// Autocommit on a leased connection: PostgreSQL readers need no separate connections.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection(body)
    }

    /// Autocommit on a leased connection: each statement is its own transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection(body)
    }

    /// Autocommit on a leased connection, as `write`: the migrator manages its own transactions.
    func withoutTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection(body)
    }

    /// Runs `body` inside `BEGIN … COMMIT` on a leased connection.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withConnection { connection in try connection.transaction { try body(connection) } }
    }

    /// Fails queued and later operations with `StoreError.unavailable` and closes every
    /// connection once its current operation is done. Idempotent.
    func close() async {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(throwing: StoreError.unavailable(detail: "postgres database closed")) }
        for slot in slots { await slot.close() }
    }

    private func acquire() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let immediate: Result<Int, any Error>? = state.withLock { state in
                if state.closed { return .failure(StoreError.unavailable(detail: "postgres database closed")) }
                if let index = state.free.popLast() { return .success(index) }
                state.waiters.append(continuation)
                return nil
            }
            // Resumed outside the lock: resuming may run the waiter's code inline.
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    private func release(_ index: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.free.append(index)
            return nil
        }
        waiter?.resume(returning: index)
    }
}
