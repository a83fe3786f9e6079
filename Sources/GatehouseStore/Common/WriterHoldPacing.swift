/// How many rows the next batch of a long job (a purge, a migration's backfill) may change, from how long the
/// last batch held the writer.
///
/// A fixed batch is quick on a small table and slow on a large one: 500 expired refresh rows of a 10M-row
/// table took 130 ms in one statement, and every refresh waited behind it. So a batch that held the writer
/// longer than ``holdTarget`` makes the next one smaller in proportion, and a quick one lets the size grow
/// back (at most doubling) up to ``largest``. Between batches the job rests as long as the batch took
/// (``rest(after:)``), so the writes queued behind it go first.
public struct WriterHoldPacing: Sendable, Equatable {
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

    /// The rest after a batch that took `held`: as long, at most ``longestRest``.
    public static func rest(after held: Duration) -> Duration { min(held, longestRest) }

    /// A duration in seconds.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
