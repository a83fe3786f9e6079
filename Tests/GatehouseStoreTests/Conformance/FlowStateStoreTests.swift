import Foundation
import GatehouseStore
import Testing

@Suite("FlowStateStore conformance")
struct FlowStateStoreTests {
    static func flow(_ seed: String, expiresIn: Double = 600) -> FlowState {
        FlowState(stateHash: testHash(seed), createdAt: TestTime.at(0), expiresAt: TestTime.at(expiresIn),
                  payload: #"{"provider":"apple","nonce":"n","return_to":"/"}"#)
    }

    @Test(arguments: StoreBackends.all)
    func consumeOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.flowStates.create(Self.flow("s1"))
            #expect(try await db.flowStates.consume(stateHash: testHash("s1"), now: TestTime.at(5)) == Self.flow("s1"))
            #expect(try await db.flowStates.consume(stateHash: testHash("s1"), now: TestTime.at(6)) == nil)
            #expect(try await db.flowStates.consume(stateHash: testHash("unknown"), now: TestTime.at(6)) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func expiredFlowIsNotReturned(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.flowStates.create(Self.flow("s1", expiresIn: 10))
            #expect(try await db.flowStates.consume(stateHash: testHash("s1"), now: TestTime.at(10)) == nil)
            #expect(try await db.flowStates.purgeExpired(now: TestTime.at(10), limit: 10) == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func duplicateStateConflicts(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.flowStates.create(Self.flow("s1"))
            await expectStoreError(.conflict) { try await db.flowStates.create(Self.flow("s1")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentCallbacksExactlyOneWins(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.flowStates.create(Self.flow("race"))
            let store = db.flowStates
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await store.consume(stateHash: testHash("race"), now: TestTime.at(1)) != nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeLeavesLiveFlows(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.flowStates.create(Self.flow("old", expiresIn: 10))
            try await db.flowStates.create(Self.flow("live", expiresIn: 1000))
            #expect(try await db.flowStates.purgeExpired(now: TestTime.at(500), limit: 10) == 1)
            #expect(try await db.flowStates.consume(stateHash: testHash("live"), now: TestTime.at(500)) != nil)
        }
    }
}
