import Foundation
import GatehouseStore
import Testing

@Suite("SecondFactorStore conformance")
struct SecondFactorStoreTests {
    static func factor(_ user: String = "u1", secret: [UInt8] = [1, 2, 3], at seconds: Double = 1) -> TOTPFactor {
        TOTPFactor(userID: user, sealedSecret: secret, createdAt: TestTime.at(seconds))
    }

    @Test(arguments: StoreBackends.all)
    func aPendingFactorIsReplacedButAConfirmedOneIsKept(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let store = db.secondFactors
            #expect(try await store.totp(userID: "u1") == nil)
            #expect(try await store.startTOTP(Self.factor(secret: [1])))
            #expect(try await store.startTOTP(Self.factor(secret: [2], at: 5)))
            #expect(try await store.totp(userID: "u1") == Self.factor(secret: [2], at: 5))
            #expect(try await store.confirmTOTP(userID: "u1", step: 100, at: TestTime.at(9)))
            #expect(try await store.confirmTOTP(userID: "u1", step: 101, at: TestTime.at(9)) == false)
            #expect(try await store.startTOTP(Self.factor(secret: [3], at: 10)) == false)
            let confirmed = try #require(try await store.totp(userID: "u1"))
            #expect(confirmed.sealedSecret == [2] && confirmed.confirmedAt == TestTime.at(9) && confirmed.lastStep == 100)
            await expectStoreError(.notFound) { _ = try await store.startTOTP(Self.factor("ghost")) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func aStepIsAcceptedOnceAndNeverBeforeALaterOne(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let store = db.secondFactors
            _ = try await store.startTOTP(Self.factor())
            #expect(try await store.acceptTOTPStep(userID: "u1", step: 5) == false)   // pending: no sign-in with it yet
            #expect(try await store.confirmTOTP(userID: "u1", step: 5, at: TestTime.at(2)))
            #expect(try await store.acceptTOTPStep(userID: "u1", step: 5) == false)   // the confirming code is spent
            #expect(try await store.acceptTOTPStep(userID: "u1", step: 7))
            #expect(try await store.acceptTOTPStep(userID: "u1", step: 6) == false)
            // Racing submissions of one code: exactly one is accepted.
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 { group.addTask { try await store.acceptTOTPStep(userID: "u1", step: 8) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
            #expect(try await store.totp(userID: "u1")?.lastStep == 8)
            #expect(try await store.deleteTOTP(userID: "u1"))
            #expect(try await store.deleteTOTP(userID: "u1") == false)
            #expect(try await store.acceptTOTPStep(userID: "u1", step: 9) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func recoveryCodesAreSpentOnceAndReplacedTogether(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            let store = db.secondFactors
            try await store.replaceRecoveryCodes(userID: "u1", hashes: [testHash("a"), testHash("b"), testHash("c")], at: TestTime.at(1))
            #expect(try await store.unusedRecoveryCodes(userID: "u1") == 3)
            #expect(try await store.useRecoveryCode(userID: "u2", hash: testHash("a"), at: TestTime.at(2)) == false)
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { try await store.useRecoveryCode(userID: "u1", hash: testHash("a"), at: TestTime.at(2)) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
            #expect(try await store.unusedRecoveryCodes(userID: "u1") == 2)
            try await store.replaceRecoveryCodes(userID: "u1", hashes: [testHash("d")], at: TestTime.at(3))
            #expect(try await store.useRecoveryCode(userID: "u1", hash: testHash("b"), at: TestTime.at(4)) == false)
            #expect(try await store.unusedRecoveryCodes(userID: "u1") == 1)
            #expect(try await store.deleteRecoveryCodes(userID: "u1") == 1)
            #expect(try await store.unusedRecoveryCodes(userID: "u1") == 0)
        }
    }

    @Test(arguments: StoreBackends.all)
    func deletingTheUserDeletesItsFactors(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            _ = try await db.secondFactors.startTOTP(Self.factor())
            try await db.secondFactors.replaceRecoveryCodes(userID: "u1", hashes: [testHash("a")], at: TestTime.at(1))
            _ = try await db.users.delete(id: "u1")
            #expect(try await db.secondFactors.totp(userID: "u1") == nil)
            #expect(try await db.secondFactors.unusedRecoveryCodes(userID: "u1") == 0)
        }
    }
}
