import Dispatch
import GatehouseStore

/// A connection and the serial dispatch queue that owns it.
///
/// SQLite calls block (disk I/O, busy-waiting on other processes' locks). Running them on
/// Swift's cooperative pool — two threads on this machine — would stall every task, so each
/// connection does its work on its own queue and resumes the awaiting task via a continuation.
final class SQLiteConnectionQueue: Sendable {
    private let queue: DispatchQueue
    private let connection: SQLiteConnection

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
            queue.async { [connection] in
                guard !connection.isClosed else {
                    continuation.resume(throwing: StoreError.unavailable(detail: "sqlite database closed"))
                    return
                }
                continuation.resume(with: Result { try body(connection) })
            }
        }
    }

    /// Queues `body` on the connection's queue without waiting for it (the group-commit writer's
    /// drain; `body` must report its own outcome).
    func enqueue(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queue.async { [connection] in body(connection) }
    }

    /// Closes the connection after work already queued has finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [connection] in
                connection.close()
                continuation.resume()
            }
        }
    }
}
