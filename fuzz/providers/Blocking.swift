import Dispatch
import Synchronization

/// Runs async work to completion from libFuzzer's (synchronous, non-pool) thread.
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let slot = ResultSlot<T>()
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        slot.value.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return slot.value.withLock { $0! }
}

private final class ResultSlot<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}
