import Foundation
import GatehousePostgres
import GatehouseSQLite
import GatehouseStore
import Testing

@Suite("LeaseStore conformance")
struct LeaseStoreTests {
    @Test(arguments: StoreBackends.all)
    func oneHolderUntilExpiryThenAnother(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db async throws in
            let leases = db.leases
            #expect(try await leases.acquire(name: "maintenance", holder: "a", ttl: 30, now: TestTime.at(0)) == true)
            #expect(try await leases.acquire(name: "maintenance", holder: "b", ttl: 30, now: TestTime.at(10)) == false)
            // Renewal by the holder moves the expiry: still a's at 35.
            #expect(try await leases.acquire(name: "maintenance", holder: "a", ttl: 30, now: TestTime.at(20)) == true)
            #expect(try await leases.acquire(name: "maintenance", holder: "b", ttl: 30, now: TestTime.at(35)) == false)
            // Expired at 50: b takes it, and a no longer has it.
            #expect(try await leases.acquire(name: "maintenance", holder: "b", ttl: 30, now: TestTime.at(50)) == true)
            #expect(try await leases.acquire(name: "maintenance", holder: "a", ttl: 30, now: TestTime.at(51)) == false)
            // Names are independent.
            #expect(try await leases.acquire(name: "other", holder: "a", ttl: 30, now: TestTime.at(51)) == true)
        }
    }

    @Test(arguments: StoreBackends.all)
    func releaseFreesOnlyTheHoldersLease(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let leases = db.leases
            #expect(try await leases.acquire(name: "m", holder: "a", ttl: 60, now: TestTime.at(0)) == true)
            try await leases.release(name: "m", holder: "b")  // not b's: no effect
            #expect(try await leases.acquire(name: "m", holder: "b", ttl: 60, now: TestTime.at(1)) == false)
            try await leases.release(name: "m", holder: "a")
            #expect(try await leases.acquire(name: "m", holder: "b", ttl: 60, now: TestTime.at(2)) == true)
            try await leases.release(name: "never-taken", holder: "a")
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentTakersOfAFreeLeaseHaveOneWinner(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let leases = db.leases
            for round in 0..<10 {
                let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for holder in 0..<12 {
                        group.addTask {
                            try await leases.acquire(name: "r\(round)", holder: "h\(holder)", ttl: 60, now: TestTime.at(0))
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(winners == 1, "round \(round): \(winners) winners")
            }
        }
    }
}

/// Two database instances on one database stand in for two server processes.
@Suite("Leases across instances")
struct LeaseAcrossInstancesTests {
    @Test func sqliteFileInstancesShareOneLease() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let first = try await SQLiteDatabase.open(location: .file(path: folder.appending("db.sqlite")))
        _ = try await first.migrate()
        let second = try await SQLiteDatabase.open(location: .file(path: folder.appending("db.sqlite")))
        try await Self.expectExclusive(first, second)
        await second.close()
        await first.close()
    }

    @Test(.enabled(if: PostgresTestCluster.isEnabled)) func postgresInstancesShareOneLease() async throws {
        try await withPostgresSchema { schema in
            let first = try await PostgresDatabase.open(url: schema.url())
            _ = try await first.migrate()
            let second = try await PostgresDatabase.open(url: schema.url())
            try await Self.expectExclusive(first, second)
            await second.close()
            await first.close()
        }
    }

    /// Many rounds of both instances racing for a fresh lease (and for an expired one): exactly
    /// one holder wins each time.
    static func expectExclusive(_ first: any GatehouseDatabase, _ second: any GatehouseDatabase) async throws {
        for round in 0..<15 {
            for phase in 0..<2 {
                // Phase 1 races at a time after the phase-0 winner's lease expired.
                let now = TestTime.at(Double(phase) * 100)
                let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for taker in 0..<8 {
                        let db = taker % 2 == 0 ? first : second
                        group.addTask {
                            try await db.leases.acquire(name: "round\(round)", holder: "p\(phase)-\(taker)", ttl: 60, now: now)
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(winners == 1, "round \(round) phase \(phase): \(winners) winners")
            }
        }
    }
}
