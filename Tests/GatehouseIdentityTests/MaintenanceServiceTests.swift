import Foundation
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Synchronization
import Testing

@Suite struct MaintenanceServiceTests {
    static func hash(_ seed: String) -> TokenHash {
        TokenHash(Array(seed.utf8.prefix(32)) + [UInt8](repeating: 7, count: max(0, 32 - seed.utf8.count)))
    }

    /// Expired and live rows of several kinds, the clock at `start` + 100 s.
    static func seeded(_ clock: ManualClock) async throws -> any GatehouseDatabase {
        let database = try await SigningKeyRingTests.database()
        let start = clock.now
        try await database.users.create(User(id: "u1", email: "u1@example.com", createdAt: start))
        for (index, lifetime) in [10.0, 20, 500, 600].enumerated() {
            let at = start.addingTimeInterval(lifetime)
            try await database.sessions.create(Session(idHash: hash("s\(index)"), userId: "u1", createdAt: start,
                                                       idleExpiresAt: at, absoluteExpiresAt: at, authMethods: ["pwd"]))
            try await database.flowStates.create(FlowState(stateHash: hash("f\(index)"), createdAt: start, expiresAt: at, payload: "{}"))
            try await database.oneTimeTokens.create(OneTimeToken(hash: hash("t\(index)"), purpose: .passwordReset, userId: "u1",
                                                                 createdAt: start, expiresAt: at))
            _ = try await database.rateLimits.hit(bucket: "login", key: "k\(index)", window: lifetime, limit: 5, now: start)
        }
        clock.advance(100)
        return database
    }

    @Test func purgesExpiredRowsAndKeepsLiveOnes() async throws {
        let clock = ManualClock()
        let start = clock.now
        let database = try await Self.seeded(clock)
        let service = MaintenanceService(stores: .init(database: database), settings: .init(interval: 60, batchSize: 1), clock: clock.identity)
        let report = try await service.runOnce()
        #expect(report.skipped == false)
        #expect(report.purged.map(\.table) == MaintenanceService.purgedTables, "the list metrics seed at 0")
        let byTable = Dictionary(uniqueKeysWithValues: report.purged.map { ($0.table, $0.rows) })
        #expect(byTable["sessions"] == 2)
        #expect(byTable["flow_states"] == 2)
        #expect(byTable["one_time_tokens"] == 2)
        #expect(byTable["rate_limits"] == 2)
        #expect(report.total == 8)

        // Looked up at the start (when all were valid): the expired ones are gone, the live ones stay.
        for index in 0..<4 {
            let live = index >= 2
            #expect((try await database.sessions.findValid(idHash: Self.hash("s\(index)"), now: start) != nil) == live)
            #expect((try await database.flowStates.consume(stateHash: Self.hash("f\(index)"), now: start) != nil) == live)
            #expect((try await database.oneTimeTokens.consume(hash: Self.hash("t\(index)"), purpose: .passwordReset,
                                                               now: start) != nil) == live)
        }
        // A second run finds nothing more.
        #expect(try await service.runOnce().total == 0)
        await database.close()
    }

    @Test func batchesAreCappedPerRun() async throws {
        let clock = ManualClock()
        let database = try await Self.seeded(clock)
        let service = MaintenanceService(stores: .init(database: database), settings: .init(interval: 60, batchSize: 1, maxBatchesPerTable: 1),
                                         clock: clock.identity)
        let first = try await service.runOnce()
        #expect(first.purged.first { $0.table == "sessions" }?.rows == 1)
        let second = try await service.runOnce()
        #expect(second.purged.first { $0.table == "sessions" }?.rows == 1)
        #expect(try await service.runOnce().purged.first { $0.table == "sessions" }?.rows == 0)
        await database.close()
    }

    @Test func onlyTheLeaseHolderPurgesUntilItStops() async throws {
        let clock = ManualClock()
        let database = try await Self.seeded(clock)
        let settings = MaintenanceService.Settings(interval: 3_600)
        let first = MaintenanceService(stores: .init(database: database), settings: settings, clock: clock.identity, holder: "first")
        let second = MaintenanceService(stores: .init(database: database), settings: settings, clock: clock.identity, holder: "second")
        #expect(try await first.runOnce().skipped == false)
        #expect(try await second.runOnce().skipped)
        // stop() gives the lease up, so the other takes over at once rather than after the TTL.
        first.start()
        await first.stop()
        #expect(try await second.runOnce().skipped == false)
        #expect(try await first.runOnce().skipped)
        await database.close()
    }

    @Test func loopRunsEveryIntervalAndReports() async throws {
        let database = try await SigningKeyRingTests.database()
        let runs = Mutex(0)
        let service = MaintenanceService(stores: .init(database: database), settings: .init(interval: 0.05),
                                         onReport: { _ in runs.withLock { $0 += 1 } })
        service.start()
        let deadline = Date().addingTimeInterval(60)
        while runs.withLock({ $0 }) < 2 && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        await service.stop()
        #expect(runs.withLock { $0 } >= 2)
        await database.close()
    }
}
