import GatehouseStore
import Synchronization

/// The single writer connection with group commit, and the checkpointer that keeps checkpoints off it.
///
/// Writes queue here instead of contending for SQLite's lock. Each time the writer's queue gets to
/// run, it takes every write waiting and runs them in one `BEGIN IMMEDIATE … COMMIT`, each inside its
/// own savepoint: a write that throws is rolled back to its savepoint alone (no half-written state),
/// the others commit together, and with `synchronous=FULL` they share one sync of the WAL. No write is
/// acknowledged before the COMMIT that holds it succeeded; if the COMMIT fails, every write of the
/// batch fails. Writes of one caller stay in order (the queue is FIFO); writes of concurrent callers
/// were never ordered.
///
/// Checkpoints. SQLite's auto-checkpoint runs inside every COMMIT once the WAL is past 1000 pages; under
/// a steady stream of writes the WAL is never wholly copied back between two commits, so it never
/// restarts, stays past 1000 pages, and *every* commit then pays a checkpoint with its sync of the
/// database file — the refresh benchmark's 800 ms tail. Here the writer connection's WAL hook replaces
/// the auto-checkpoint: past `checkpointPages`, the checkpointer connection, on its own queue, copies
/// the WAL back (passive: it never blocks the writer or readers). It cannot finish while commits keep
/// arriving, so once the WAL has grown by another `checkpointPages`, the writer itself checkpoints the
/// few frames left between two batches — once per cycle, not per commit — and the next write restarts
/// the WAL from its beginning (the file is truncated to `journal_size_limit`).
final class SQLiteWriter: Sendable {
    /// One queued write: its body, type-erased, and how to hand back the result.
    private struct Job: Sendable {
        let body: @Sendable (SQLiteConnection) throws -> any Sendable
        let finish: @Sendable (Result<any Sendable, any Error>) -> Void
    }

    /// At most this many writes share a transaction (a bound on the latency one batch adds).
    static let maximumBatch = 64

    private let connection: SQLiteConnectionQueue
    private let checkpointer: SQLiteConnectionQueue?
    private let checkpointPages: Int32
    private let pending = Mutex<[Job]>([])
    private let checkpointRequested = Atomic<Bool>(false)
    /// WAL size at the writer's last own checkpoint attempt (touched only on the writer's queue).
    private let lastWriterCheckpoint = Atomic<Int32>(0)

    init(connection: SQLiteConnectionQueue, checkpointer: SQLiteConnectionQueue?, checkpointPages: Int32) {
        self.connection = connection
        self.checkpointer = checkpointer
        self.checkpointPages = max(1, checkpointPages)
    }

    /// Runs `body` inside a write transaction (possibly shared with other writes, each in its own
    /// savepoint) and returns once that transaction has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let job = Job(body: { try body($0) }, finish: { continuation.resume(with: $0) })
            let first = pending.withLock { jobs in
                jobs.append(job)
                return jobs.count == 1
            }
            // Only the write that finds the list empty schedules a drain; the drain takes the rest.
            if first { connection.enqueue { [self] in drain($0) } }
        }
        guard let typed = value as? T else { throw StoreError.failure(detail: "sqlite writer returned an unexpected type") }
        return typed
    }

    /// Runs `body` on the writer connection outside any transaction (the migrator manages its own).
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await connection.run(body)
    }

    func close() async {
        await connection.close()
        await checkpointer?.close()
    }

    // MARK: - On the writer's queue

    private func drain(_ db: SQLiteConnection) {
        let (batch, more) = pending.withLock { jobs -> ([Job], Bool) in
            let taken = Array(jobs.prefix(Self.maximumBatch))
            jobs.removeFirst(taken.count)
            return (taken, !jobs.isEmpty)
        }
        if more { connection.enqueue { [self] in drain($0) } }
        guard !batch.isEmpty else { return }
        guard !db.isClosed else {
            for job in batch { job.finish(.failure(StoreError.unavailable(detail: "sqlite database closed"))) }
            return
        }
        let results = batch.count == 1 ? [Result { try db.writeTransaction { try batch[0].body(db) } }] : runShared(batch, db)
        // Acknowledge first: the checkpoint work below delays the next batch, never this one.
        for (job, result) in zip(batch, results) { job.finish(result) }
        checkpointIfDue(db)
    }

    private func checkpointIfDue(_ db: SQLiteConnection) {
        let pages = db.walPages
        guard pages >= checkpointPages else {
            lastWriterCheckpoint.store(0, ordering: .relaxed)
            return
        }
        requestCheckpoint()
        let last = lastWriterCheckpoint.load(ordering: .relaxed)
        guard pages >= 2 * checkpointPages, pages >= last + checkpointPages else { return }
        // nil: the checkpointer is copying right now; try again after the next batch.
        if (try? db.checkpointPassive()) != nil { lastWriterCheckpoint.store(pages, ordering: .relaxed) }
    }

    /// Several writes in one transaction, each in a savepoint.
    private func runShared(_ batch: [Job], _ db: SQLiteConnection) -> [Result<any Sendable, any Error>] {
        do { try db.run("BEGIN IMMEDIATE", []) } catch { return batch.map { _ in .failure(error) } }
        var results: [Result<any Sendable, any Error>] = []
        results.reserveCapacity(batch.count)
        for job in batch {
            do {
                try db.run("SAVEPOINT gatehouse_write", [])
                let value = try job.body(db)
                try db.run("RELEASE gatehouse_write", [])
                results.append(.success(value))
            } catch {
                guard db.inTransaction else { return abandon(batch, cause: error, db) }
                do {
                    try db.run("ROLLBACK TO gatehouse_write", [])
                    try db.run("RELEASE gatehouse_write", [])
                } catch {
                    return abandon(batch, cause: error, db)
                }
                results.append(.failure(error))
            }
        }
        do {
            try db.run("COMMIT", [])
        } catch {
            return abandon(batch, cause: error, db)
        }
        return results
    }

    /// The shared transaction is lost (SQLite rolled it back, or COMMIT failed): nothing of the
    /// batch was written, so every write of it fails.
    private func abandon(_ batch: [Job], cause: any Error, _ db: SQLiteConnection) -> [Result<any Sendable, any Error>] {
        if db.inTransaction { _ = try? db.run("ROLLBACK", []) }
        return batch.map { _ in .failure(cause) }
    }

    private func requestCheckpoint() {
        guard let checkpointer,
              checkpointRequested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        checkpointer.enqueue { [self] db in
            // A failed checkpoint only leaves the WAL longer; the next request tries again.
            _ = try? db.checkpointPassive()
            checkpointRequested.store(false, ordering: .releasing)
        }
    }
}
