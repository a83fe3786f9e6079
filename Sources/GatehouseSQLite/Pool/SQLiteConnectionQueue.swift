import Dispatch
import GatehouseStore
import Synchronization

/// A connection and the serial dispatch queue that owns it.
///
/// SQLite calls block (disk I/O, busy-waiting on other processes' locks). Running them on
/// Swift's cooperative pool — two threads on this machine — would stall every task, so each
/// connection does its work on its own queue and resumes the awaiting task via a continuation.
///
/// Except short reads: `runInline` runs a read on the calling thread when the connection is free
/// at that instant, under a time bound (docs/hot-paths.md, "Reads without a thread hop"). `inUse`
/// is what keeps the connection to one thread at a time: `run`, `runInline` and `close` hold it
/// while they touch the connection (the writer's `enqueue` needs no lock: the writer is never run inline).
final class SQLiteConnectionQueue: Sendable {
    private let queue: DispatchQueue
    private let connection: SQLiteConnection
    private let inUse = Mutex<Void>(())

    private init(queue: DispatchQueue, connection: SQLiteConnection) {
        self.queue = queue
        self.connection = connection
    }

    /// Opens the connection on a fresh queue (opening blocks too).
    static func open(label: String, path: String, role: SQLiteConnection.Role,
                     busyTimeoutMilliseconds: Int32, synchronous: SQLiteSynchronous = .full) async throws -> SQLiteConnectionQueue {
        let queue = DispatchQueue(label: label)
        let connection = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    try SQLiteConnection(path: path, role: role, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
                                         synchronous: synchronous)
                })
            }
        }
        return SQLiteConnectionQueue(queue: queue, connection: connection)
    }

    /// Runs `body` with exclusive use of the connection, off the cooperative pool.
    func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                // Blocks this queue's thread (never the cooperative pool) while an inline read finishes.
                let result = inUse.withLock { _ in
                    connection.isClosed ? .failure(StoreError.unavailable(detail: "sqlite database closed"))
                        : Result { try body(connection) }
                }
                continuation.resume(with: result)
            }
        }
    }

    /// The outcome of `runInline`.
    enum InlineOutcome<T: Sendable>: Sendable {
        /// The read ran on the calling thread; this is its result.
        case done(Result<T, any Error>)
        /// The connection was in use (or closed): try another, or `run`.
        case busy
        /// The read outran its budget or met another process's lock and was abandoned (its outcome
        /// discarded): run it with `run`, which may take as long as it needs.
        case abandoned
    }

    /// Runs a read-only `body` on the calling thread if the connection is free right now, giving up
    /// (and discarding whatever `body` produced) past `budgetNanoseconds` or at a lock that would make
    /// it wait. Never waits for the connection.
    func runInline<T: Sendable>(budgetNanoseconds: UInt64,
                                _ body: @Sendable (SQLiteConnection) throws -> T) -> InlineOutcome<T> {
        let outcome: InlineOutcome<T>? = inUse.withLockIfAvailable { _ in
            guard !connection.isClosed else { return .busy }
            connection.beginInlineRead(budgetNanoseconds: budgetNanoseconds)
            let result = Result { try body(connection) }
            return connection.endInlineRead() ? .abandoned : .done(result)
        }
        return outcome ?? .busy
    }

    /// Queues `body` on the connection's queue without waiting for it (the group-commit writer's
    /// drain; `body` must report its own outcome).
    func enqueue(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async { [connection] in body(connection) }
    }

    /// Closes the connection after work already queued has finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                inUse.withLock { _ in connection.close() }
                continuation.resume()
            }
        }
    }
}
