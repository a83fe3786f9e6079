import Synchronization

/// The task executor of one deferred request: its task runs on the I/O thread that received the
/// request for as long as it never waits on another thread, and on Swift's global pool after that.
///
/// Why: a request whose handler only reads (a Bearer check, a session lookup on SQLite, whose short
/// reads run on the calling thread) used to cost four thread wake-ups — I/O thread to the pool, to the
/// database queue, back to the pool, back to the I/O thread through libmicrohttpd's resume — and those
/// wake-ups were about half of its CPU. Run inline, such a request is answered in the same callback
/// with no suspend, no resume and no wake-up at all.
///
/// How: `drain()` runs on the I/O thread right after the task is created and runs every job enqueued
/// meanwhile (the task's first job, its resumptions, child tasks, default actors it visits). When the
/// task waits on something another thread will finish (a SQLite write, a PostgreSQL round trip, an
/// Argon2id hash, a sleep), the queue empties and `drain()` returns; from then on `enqueue` hands
/// every job to the global concurrent executor, so the I/O thread never waits for a handler.
/// Deciding "inline or forward" and appending happen under one lock, so a job enqueued by another
/// thread while the drain ends is never lost.
final class IOThreadTaskExecutor: TaskExecutor, Sendable {
    private struct State {
        var draining = true
        var jobs: [UnownedJob] = []
    }
    private let state = Mutex(State())

    init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let kept = state.withLock { state in
            guard state.draining else { return false }
            state.jobs.append(job)
            return true
        }
        if !kept { globalConcurrentExecutor.enqueue(job) }
    }

    /// Runs the jobs enqueued so far, and those they enqueue, on the calling thread; returns when none
    /// is left. Called once, by the I/O thread that created the task; later jobs go to the global pool.
    func drain() {
        let executor = asUnownedTaskExecutor()
        while true {
            let next: UnownedJob? = state.withLock { state in
                guard !state.jobs.isEmpty else {
                    state.draining = false
                    return nil
                }
                return state.jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: executor)
        }
    }
}
