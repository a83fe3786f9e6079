/// How many rows the next purge batch of a table deletes, from how long the last one held the writer.
///
/// A fixed batch is quick on a small table and slow on a large one: 500 expired refresh rows of a 10M-row
/// table took 130 ms in one statement, and every refresh waited behind it. So a batch that held the writer
/// longer than ``holdTarget`` makes the next one smaller in proportion, and a quick one lets the size grow
/// back (at most doubling) up to the configured batch size.
public struct PurgePacing: Sendable, Equatable {
    /// How long one batch should hold the writer (SQLite) or its row locks (PostgreSQL).
    public static let holdTarget: Duration = .milliseconds(5)
    /// The floor: below it a batch's fixed cost (a statement, a commit) outweighs its rows.
    public static let smallestBatch = 10
    /// The longest rest between two batches, however slow the last one was.
    public static let longestRest: Duration = .milliseconds(100)

    /// The configured batch size, which pacing never exceeds.
    public let largest: Int

    public init(largest: Int) { self.largest = max(largest, 1) }

    /// The size after a batch of `size` rows that took `held`.
    public func next(after size: Int, held: Duration) -> Int {
        let floor = min(Self.smallestBatch, largest)
        let heldSeconds = Self.seconds(held), targetSeconds = Self.seconds(Self.holdTarget)
        guard heldSeconds > targetSeconds else { return max(min(size * 2, largest), floor) }
        let scaled = Int(Double(size) * targetSeconds / heldSeconds)
        return max(min(scaled, largest), floor)
    }

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
            try await Task.sleep(for: min(held, Self.longestRest))
        }
        return (rows, size)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
