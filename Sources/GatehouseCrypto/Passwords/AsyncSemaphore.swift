import Synchronization

/// A counting semaphore for async code: at most `limit` holders at once, waiters resumed FIFO.
///
/// Waiting suspends the task (it never blocks a cooperative thread). A waiter is not removed when
/// its task is cancelled; it still gets its turn (the work it guards is short and bounded).
public final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
        var head = 0   // index of the next waiter; avoids O(n) removeFirst
    }

    private let state: Mutex<State>

    /// A semaphore admitting `limit` concurrent holders.
    public init(limit: Int) {
        precondition(limit > 0, "limit must be positive")
        state = Mutex(State(available: limit))
    }

    /// Waits for a slot.
    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Frees a slot, handing it straight to the oldest waiter if there is one.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiters.count else {
                state.available += 1
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            if state.head > 64, state.head * 2 > state.waiters.count {
                state.waiters.removeFirst(state.head)
                state.head = 0
            }
            return waiter
        }
        next?.resume()
    }

    /// Runs `body` while holding a slot.
    public func withPermit<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}
