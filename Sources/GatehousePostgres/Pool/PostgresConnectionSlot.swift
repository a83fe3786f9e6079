import Dispatch
import GatehouseStore
import Synchronization

/// One place in the pool: a serial dispatch queue and the connection it owns, opened lazily and
/// replaced whenever it breaks.
///
/// libpq calls block (network round trips, connecting). Running them on Swift's cooperative
/// pool — two threads on this machine — would stall every task, so each slot does its work on
/// its own queue and resumes the awaiting task through a continuation.
final class PostgresConnectionSlot: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var closed = false
    }

    private let queue: DispatchQueue
    private let configuration: PostgresConfiguration
    // Only ever locked on `queue`, so never contended; it is here to make the confinement
    // checkable by the compiler rather than a promise.
    private let state = Mutex(State())

    init(index: Int, configuration: PostgresConfiguration) {
        queue = DispatchQueue(label: "gatehouse.postgres.connection\(index)")
        self.configuration = configuration
    }

    /// Runs `body` with this slot's connection, off the cooperative pool, connecting first if
    /// there is no usable connection. A connection that breaks during `body` is dropped, so the
    /// next call reconnects; the caller sees `StoreError.unavailable`.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                continuation.resume(with: Result { try runOnQueue(body) })
            }
        }
    }

    private func runOnQueue<T: Sendable>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try state.withLock { state throws -> T in
            guard !state.closed else { throw StoreError.unavailable(detail: "postgres database closed") }
            if let current = state.connection, !current.isUsableWhenIdle() {
                current.close()
                state.connection = nil
            }
            let connection: PostgresConnection
            if let current = state.connection {
                connection = current
            } else {
                connection = try PostgresConnection(configuration)
                state.connection = connection
            }
            do {
                return try body(connection)
            } catch {
                if !connection.isConnected {
                    connection.close()
                    state.connection = nil
                }
                throw error
            }
        }
    }

    /// Closes the connection after the work already queued; later calls fail as unavailable.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                state.withLock { state in
                    state.connection?.close()
                    state.connection = nil
                    state.closed = true
                }
                continuation.resume()
            }
        }
    }
}
