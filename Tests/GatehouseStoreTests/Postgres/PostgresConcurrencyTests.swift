import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// Two `PostgresDatabase` instances on one schema stand in for two server processes.
@Suite("PostgreSQL concurrency", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresConcurrencyTests {
    @Test func singleUseHoldsAcrossInstancesOverManyRounds() async throws {
        try await withPostgresSchema { schema in
            let first = try await PostgresDatabase.open(url: schema.url())
            _ = try await first.migrate()
            let second = try await PostgresDatabase.open(url: schema.url())
            try await first.users.create(.fixture("u1"))
            for round in 0..<25 {
                let seed = "round\(round)"
                try await first.oneTimeTokens.create(OneTimeTokenStoreTests.token(seed, purpose: .handoff))
                try await second.flowStates.create(FlowStateStoreTests.flow(seed))
                let winners = try await withThrowingTaskGroup(of: (token: Bool, flow: Bool).self) { group in
                    for consumer in 0..<16 {
                        let db = consumer % 2 == 0 ? first : second
                        group.addTask {
                            async let token = db.oneTimeTokens.consume(hash: testHash(seed), purpose: .handoff, now: TestTime.at(1))
                            async let flow = db.flowStates.consume(stateHash: testHash(seed), now: TestTime.at(1))
                            return (try await token != nil, try await flow != nil)
                        }
                    }
                    return try await group.reduce(into: (0, 0)) { counts, won in
                        counts.0 += won.token ? 1 : 0
                        counts.1 += won.flow ? 1 : 0
                    }
                }
                #expect(winners.0 == 1, "round \(round): \(winners.0) token winners")
                #expect(winners.1 == 1, "round \(round): \(winners.1) flow winners")
            }
            await second.close()
            await first.close()
        }
    }

    @Test func rateLimitIsCountedAcrossInstances() async throws {
        try await withPostgresSchema { schema in
            let first = try await PostgresDatabase.open(url: schema.url())
            _ = try await first.migrate()
            let second = try await PostgresDatabase.open(url: schema.url())
            for round in 0..<5 {
                let key = "k\(round)"
                let decisions = try await withThrowingTaskGroup(of: RateLimitDecision.self) { group in
                    for caller in 0..<30 {
                        let limits = caller % 2 == 0 ? first.rateLimits : second.rateLimits
                        group.addTask { try await limits.hit(bucket: "login", key: key, window: 60, limit: 4, now: TestTime.at(0)) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(decisions.filter(\.allowed).count == 4)
                #expect(decisions.map(\.count).sorted() == Array(1...30))
            }
            await second.close()
            await first.close()
        }
    }

    /// More concurrent operations than connections: the rest wait their turn (suspended, not
    /// blocking threads) and all complete.
    @Test func operationsQueueForASmallPool() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url(poolSize: 1))
            _ = try await db.migrate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        try await db.auditLog.append(AuditEvent(occurredAt: TestTime.at(Double(index)), userId: "u", type: "t"))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await db.auditLog.count(userId: "u") == 200)
            await db.close()
        }
    }
}
