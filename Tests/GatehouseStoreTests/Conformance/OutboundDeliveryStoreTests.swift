import Foundation
import GatehouseStore
import Testing

@Suite("OutboundDeliveryStore conformance")
struct OutboundDeliveryStoreTests {
    static func delivery(_ id: String, created: Double, due: Double, kind: OutboundDelivery.Kind = .webhook) -> OutboundDelivery {
        OutboundDelivery(id: id, kind: kind, destination: "http://127.0.0.1:9/hook", eventType: "user.deleted",
                         payload: #"{"id":"\#(id)","type":"user.deleted","data":{"note":"ünïcode"}}"#,
                         nextAttemptAt: TestTime.at(due), createdAt: TestTime.at(created))
    }

    @Test(arguments: StoreBackends.all)
    func claimRescheduleComplete(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let store = db.outboundDeliveries
            try await store.enqueue([Self.delivery("d-new", created: 20, due: 20),
                                     Self.delivery("d-old", created: 10, due: 30, kind: .backchannelLogout)])
            try await store.enqueue([Self.delivery("d-later", created: 5, due: 1000)])
            // A batch with a duplicate id is refused whole: nothing of it is queued.
            await expectStoreError(.conflict) {
                try await store.enqueue([Self.delivery("d-fresh", created: 1, due: 1), Self.delivery("d-new", created: 1, due: 1)])
            }
            #expect(try await store.list(limit: 10).map(\.id) == ["d-later", "d-old", "d-new"])

            #expect(try await store.claimDue(now: TestTime.at(19), claimFor: 60, limit: 10).isEmpty)
            let claimed = try await store.claimDue(now: TestTime.at(30), claimFor: 60, limit: 10)
            #expect(claimed.map(\.id) == ["d-old", "d-new"])
            #expect(claimed.first?.kind == .backchannelLogout)
            #expect(claimed.first?.payload == Self.delivery("d-old", created: 10, due: 30).payload)
            #expect(claimed.allSatisfy { $0.nextAttemptAt == TestTime.at(90) })
            // Claimed rows are not handed out again until the claim lapses.
            #expect(try await store.claimDue(now: TestTime.at(89), claimFor: 60, limit: 10).isEmpty)

            try await store.reschedule(id: "d-old", attempts: 1, nextAttemptAt: TestTime.at(200), lastError: "HTTP 503")
            let retried = try await store.claimDue(now: TestTime.at(200), claimFor: 60, limit: 10)
            #expect(retried.map(\.id) == ["d-old", "d-new"])
            #expect(retried.first?.attempts == 1)
            #expect(retried.first?.lastError == "HTTP 503")
            await expectStoreError(.notFound) {
                try await store.reschedule(id: "missing", attempts: 1, nextAttemptAt: TestTime.at(1), lastError: "x")
            }
            #expect(try await store.complete(id: "d-old"))
            #expect(try await store.complete(id: "d-old") == false)
            #expect(try await store.list(limit: 10).map(\.id) == ["d-later", "d-new"])
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentClaimsNeverShareARow(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let store = db.outboundDeliveries
            try await store.enqueue((0..<40).map { Self.delivery("d\($0)", created: Double($0), due: 0) })
            let batches = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 { group.addTask { try await store.claimDue(now: TestTime.at(50), claimFor: 300, limit: 15).map(\.id) } }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let all = batches.flatMap { $0 }
            #expect(all.count == 40)
            #expect(Set(all).count == 40)
        }
    }
}
