import Foundation
import GatehouseStore
import Testing

@Suite("PendingRevocationStore conformance")
struct PendingRevocationStoreTests {
    static func revocation(_ id: String, created: Double, due: Double) -> PendingRevocation {
        PendingRevocation(id: id, provider: "apple", sealedToken: [0x01, 0x00, 0xfe], tokenTypeHint: "refresh_token",
                          nextAttemptAt: TestTime.at(due), createdAt: TestTime.at(created))
    }

    @Test(arguments: StoreBackends.all)
    func dueOldestFirstRescheduleAndComplete(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let store = db.pendingRevocations
            try await store.enqueue(Self.revocation("r-new", created: 20, due: 20))
            try await store.enqueue(Self.revocation("r-old", created: 10, due: 30))
            try await store.enqueue(Self.revocation("r-later", created: 5, due: 1000))
            await expectStoreError(.conflict) { try await store.enqueue(Self.revocation("r-new", created: 1, due: 1)) }

            #expect(try await store.due(now: TestTime.at(19), limit: 10).isEmpty)
            #expect(try await store.due(now: TestTime.at(30), limit: 10).map(\.id) == ["r-old", "r-new"])
            #expect(try await store.due(now: TestTime.at(30), limit: 1).map(\.id) == ["r-old"])
            #expect(try await store.due(now: TestTime.at(30), limit: 10).first == Self.revocation("r-old", created: 10, due: 30))

            try await store.reschedule(id: "r-old", attempts: 1, nextAttemptAt: TestTime.at(90), lastError: "HTTP 503")
            #expect(try await store.due(now: TestTime.at(30), limit: 10).map(\.id) == ["r-new"])
            let retried = try #require(try await store.due(now: TestTime.at(90), limit: 10).first)
            #expect(retried.id == "r-old")
            #expect(retried.attempts == 1)
            #expect(retried.lastError == "HTTP 503")
            #expect(retried.nextAttemptAt == TestTime.at(90))
            #expect(retried.sealedToken == [0x01, 0x00, 0xfe])
            await expectStoreError(.notFound) {
                try await store.reschedule(id: "missing", attempts: 1, nextAttemptAt: TestTime.at(1), lastError: "x")
            }

            #expect(try await store.complete(id: "r-old"))
            #expect(try await store.complete(id: "r-old") == false)
            #expect(try await store.due(now: TestTime.at(2000), limit: 10).map(\.id) == ["r-later", "r-new"])
        }
    }
}
