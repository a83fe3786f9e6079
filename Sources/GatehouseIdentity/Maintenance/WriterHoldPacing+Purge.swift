import GatehouseStore

extension WriterHoldPacing {
    /// Purges one table within a run: batches of the paced size until `budget` rows, `deadline`, or a batch
    /// that found fewer rows than it asked for; after each full batch it rests as long as the batch took, so
    /// requests queued behind it go first. Returns the rows removed and the size the next run starts at.
    /// - Parameter purge: deletes up to the given number of rows and returns how many it deleted.
    public func run(startingAt size: Int, budget: Int, until deadline: ContinuousClock.Instant,
                    _ purge: (Int) async throws -> Int) async throws -> (rows: Int, nextSize: Int) {
        let timer = ContinuousClock()
        var rows = 0, size = min(max(size, 1), largest)
        while rows < budget && timer.now < deadline {
            try Task.checkCancellation()
            let batch = min(size, budget - rows)
            let started = timer.now
            let removed = try await purge(batch)
            let held = timer.now - started
            rows += removed
            size = next(after: batch, held: held)
            if removed < batch { break }
            try await Task.sleep(for: Self.rest(after: held))
        }
        return (rows, size)
    }
}
