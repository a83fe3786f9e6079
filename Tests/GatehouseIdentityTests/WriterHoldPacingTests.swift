import GatehouseIdentity
import GatehouseStore
import Synchronization
import Testing

@Suite struct WriterHoldPacingTests {
    let pacing = WriterHoldPacing(largest: 500)

    @Test func aSlowBatchShrinksTheNextInProportionToItsHold() {
        // 500 rows in 130 ms (a large SQLite table): 5 ms is about 19 rows.
        #expect(pacing.next(after: 500, held: .milliseconds(130)) == 19)
        #expect(pacing.next(after: 100, held: .milliseconds(10)) == 50)
        // Never under the floor, however slow.
        #expect(pacing.next(after: 20, held: .seconds(2)) == WriterHoldPacing.smallestBatch)
    }

    @Test func aQuickBatchGrowsAtMostTwofoldUpToTheConfiguredSize() {
        #expect(pacing.next(after: 19, held: .milliseconds(1)) == 38)
        #expect(pacing.next(after: 400, held: .microseconds(200)) == 500)
        #expect(pacing.next(after: 500, held: .zero) == 500)
        // A configured size under the floor is kept.
        #expect(WriterHoldPacing(largest: 3).next(after: 3, held: .seconds(1)) == 3)
    }

    @Test func aRunShrinksBatchesThatHoldTooLongAndKeepsItsRowBudget() async throws {
        let sizes = Mutex<[Int]>([])
        // Not the deadline under test: on a loaded machine (the whole suite running) the sleeps stretch a lot.
        let far = ContinuousClock.now.advanced(by: .seconds(3_600))
        // Each row "holds the writer" 0.6 ms: a 100-row batch takes 60 ms, a 10-row one 6 ms.
        let (rows, next) = try await WriterHoldPacing(largest: 100).run(startingAt: 100, budget: 150, until: far) { limit in
            sizes.withLock { $0.append(limit) }
            try await Task.sleep(for: .microseconds(600 * limit))
            return limit
        }
        let asked = sizes.withLock { $0 }
        #expect(rows == 150)
        #expect(asked.reduce(0, +) == 150)
        #expect(asked.first == 100)
        // After the first batch every one is near the 10-row size a 5 ms hold allows (sleeps only overshoot).
        #expect(asked.dropFirst().allSatisfy { $0 <= 10 })
        #expect(next <= 10)
    }

    @Test func aRunStopsAtAShortBatchAndAtTheDeadline() async throws {
        let far = ContinuousClock.now.advanced(by: .seconds(3_600))
        let calls = Mutex(0)
        let short = try await pacing.run(startingAt: 500, budget: 10_000, until: far) { limit in
            calls.withLock { $0 += 1 }
            return calls.withLock { $0 } == 1 ? limit : 7
        }
        #expect(short.rows == 507)
        #expect(calls.withLock { $0 } == 2)

        let past = try await pacing.run(startingAt: 500, budget: 10_000, until: ContinuousClock.now) { _ in
            Issue.record("no batch after the deadline"); return 0
        }
        #expect(past.rows == 0 && past.nextSize == 500)
    }
}
