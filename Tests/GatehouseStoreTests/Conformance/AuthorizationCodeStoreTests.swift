import Foundation
import GatehouseStore
import Testing

@Suite("AuthorizationCodeStore conformance")
struct AuthorizationCodeStoreTests {
    @Test(arguments: StoreBackends.all)
    func redeemOnceThenReplayIsAlreadyUsed(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let code = AuthorizationCode.fixture("code")
            try await db.authorizationCodes.create(code)
            var used = code
            used.usedAt = TestTime.at(10)
            #expect(try await db.authorizationCodes.redeem(hash: code.hash, now: TestTime.at(10)) == .redeemed(used))
            #expect(try await db.authorizationCodes.redeem(hash: code.hash, now: TestTime.at(11)) == .alreadyUsed(used))
            // A replay stays a replay after the code expires: whatever it issued must still be revoked.
            #expect(try await db.authorizationCodes.redeem(hash: code.hash, now: TestTime.at(600)) == .alreadyUsed(used))
        }
    }

    /// What the authorization request bound the code to (`dpop_jkt`, `resource`) comes back with the redemption.
    @Test(arguments: StoreBackends.all)
    func theCodesKeyAndResourcesSurviveRedemption(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            var bound = AuthorizationCode.fixture("bound")
            bound.dpopJKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
            bound.resources = ["https://notes.api.example", "https://billing.api.example/v1?x=\"y\""]
            try await db.authorizationCodes.create(bound)
            try await db.authorizationCodes.create(.fixture("plain"))
            guard case .redeemed(let redeemed) = try await db.authorizationCodes.redeem(hash: bound.hash, now: TestTime.at(1)) else {
                Issue.record("must redeem"); return
            }
            #expect(redeemed.dpopJKT == bound.dpopJKT && redeemed.resources == bound.resources)
            guard case .redeemed(let plain) = try await db.authorizationCodes.redeem(hash: testHash("plain"), now: TestTime.at(1)) else {
                Issue.record("must redeem"); return
            }
            #expect(plain.dpopJKT == nil && plain.resources.isEmpty)
        }
    }

    @Test(arguments: StoreBackends.all)
    func unknownAndExpiredCodesAreInvalid(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.authorizationCodes.create(.fixture("code", expiresIn: 60))
            #expect(try await db.authorizationCodes.redeem(hash: testHash("nope"), now: TestTime.at(1)) == .invalid)
            #expect(try await db.authorizationCodes.redeem(hash: testHash("code"), now: TestTime.at(60)) == .invalid)
            // The late attempt did not mark it used.
            #expect(try await db.authorizationCodes.redeem(hash: testHash("code"), now: TestTime.at(61)) == .invalid)
            if case .redeemed = try await db.authorizationCodes.redeem(hash: testHash("code"), now: TestTime.at(59.999)) {
            } else {
                Issue.record("an unexpired, unused code must redeem")
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func createFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            await expectStoreError(.notFound) { try await db.authorizationCodes.create(.fixture("a", userId: "ghost")) }
            await expectStoreError(.notFound) { try await db.authorizationCodes.create(.fixture("b", clientId: "ghost")) }
            try await db.authorizationCodes.create(.fixture("code"))
            await expectStoreError(.conflict) { try await db.authorizationCodes.create(.fixture("code")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func fiftyConcurrentRedeemersExactlyOneWins(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.authorizationCodes.create(.fixture("race"))
            let store = db.authorizationCodes
            let outcomes = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await store.redeem(hash: testHash("race"), now: TestTime.at(1)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let redeemed = outcomes.filter { if case .redeemed = $0 { true } else { false } }
            let replays = outcomes.filter { if case .alreadyUsed = $0 { true } else { false } }
            #expect(redeemed.count == 1)
            #expect(replays.count == 49)
        }
    }

    @Test(arguments: StoreBackends.all)
    func attachedFamilyIsVisibleOnReplay(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let code = AuthorizationCode.fixture("code")
            try await db.authorizationCodes.create(code)
            guard case .redeemed(let redeemed) = try await db.authorizationCodes.redeem(hash: code.hash,
                                                                                       now: TestTime.at(1)) else {
                Issue.record("first redemption must succeed")
                return
            }
            #expect(redeemed.issuedFamilyId == nil)
            try await db.authorizationCodes.attachFamily(hash: code.hash, familyId: "fam-1")
            guard case .alreadyUsed(let replayed) = try await db.authorizationCodes.redeem(hash: code.hash,
                                                                                          now: TestTime.at(2)) else {
                Issue.record("a second redemption must be a replay")
                return
            }
            #expect(replayed.issuedFamilyId == "fam-1")
            #expect(replayed.usedAt == TestTime.at(1))
            await expectStoreError(.notFound) {
                try await db.authorizationCodes.attachFamily(hash: testHash("missing"), familyId: "fam-2")
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeExpiredInBatches(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.authorizationCodes.create(.fixture("short1", expiresIn: 30))
            try await db.authorizationCodes.create(.fixture("short2", expiresIn: 30))
            try await db.authorizationCodes.create(.fixture("long", expiresIn: 60))
            #expect(try await db.authorizationCodes.purgeExpired(now: TestTime.at(30), limit: 1) == 1)
            #expect(try await db.authorizationCodes.purgeExpired(now: TestTime.at(30), limit: 10) == 1)
            #expect(try await db.authorizationCodes.purgeExpired(now: TestTime.at(30), limit: 10) == 0)
            // The purged hashes are free again; the unexpired code is still there.
            try await db.authorizationCodes.create(.fixture("short1", expiresIn: 30))
            await expectStoreError(.conflict) { try await db.authorizationCodes.create(.fixture("long")) }
        }
    }
}
