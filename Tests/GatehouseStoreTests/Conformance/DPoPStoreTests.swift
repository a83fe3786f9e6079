import Foundation
import GatehouseStore
import Testing

/// What DPoP (RFC 9449) needs from the store, on every backend: a proof's `jti` is recorded by an
/// insert of which exactly one of any number of concurrent callers succeeds (the replay check
/// across processes), and a refresh family's key binding survives storage and every rotation path.
@Suite("DPoP storage conformance")
struct DPoPStoreTests {
    @Test(arguments: StoreBackends.all)
    func concurrentFirstUsesOfOneJTIExactlyOneWins(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let store = db.flowStates
            let proof = FlowState(stateHash: testHash("dpop-jti"), createdAt: TestTime.at(0), expiresAt: TestTime.at(70),
                                  payload: #"{"kind":"dpop_jti"}"#)
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do { try await store.create(proof); return true } catch let error as StoreError where error.kind == .conflict {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            // Once its window is over the record is purged like any expired flow.
            #expect(try await store.purgeExpired(now: TestTime.at(70), limit: 10) == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func aFamilysKeyBindingIsStoredAndCarriedByRotation(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            var bound = RefreshToken.fixture("bound0")
            bound.dpopJKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
            // The APIs its authorization named travel with it the same way.
            bound.resources = ["https://notes.api.example", "https://billing.api.example"]
            try await db.refreshTokens.create(bound)
            #expect(try await db.refreshTokens.find(hash: bound.hash) == bound)
            #expect(try await db.refreshTokens.find(hash: bound.hash)?.dpopJKT == bound.dpopJKT)
            // `exchange` (one statement on PostgreSQL, the writer's transaction on SQLite) stores the successor's binding.
            var successor = RefreshToken.fixture("bound1", created: 10)
            successor.dpopJKT = bound.dpopJKT
            successor.resources = bound.resources
            let (expected, next) = (bound.dpopJKT, successor)
            let outcome = try await db.refreshTokens.exchange(hash: bound.hash, now: TestTime.at(10), graceWindow: 0) { presented, _ in
                (next, presented.dpopJKT == expected)
            }
            // prepare sees the binding it must check.
            guard case .rotated(true) = outcome else { Issue.record("must rotate, got \(outcome)"); return }
            #expect(try await db.refreshTokens.find(hash: successor.hash) == successor)
            // `rotate` too; an unbound token stays unbound.
            var third = RefreshToken.fixture("bound2", created: 20)
            third.dpopJKT = bound.dpopJKT
            third.resources = bound.resources
            #expect(try await db.refreshTokens.rotate(hash: successor.hash, replacement: third, now: TestTime.at(20), graceWindow: 0)
                    != .invalid)
            #expect(try await db.refreshTokens.find(hash: third.hash)?.dpopJKT == bound.dpopJKT)
            #expect(try await db.refreshTokens.find(hash: third.hash)?.resources == bound.resources)
            try await db.refreshTokens.create(.fixture("plain", family: "f2"))
            #expect(try await db.refreshTokens.find(hash: testHash("plain"))?.dpopJKT == nil)
            #expect(try await db.refreshTokens.find(hash: testHash("plain"))?.resources == [])
        }
    }
}
