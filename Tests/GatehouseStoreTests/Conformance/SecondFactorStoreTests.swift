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

    static func key(_ id: [UInt8], user: String = "u1") -> WebAuthnCredential {
        WebAuthnCredential(credentialID: id, userID: user, publicKey: [0xa5, 0x01], algorithm: -7, signCount: 0, backupEligible: false,
                           backedUp: false, userVerified: false, aaguid: [UInt8](repeating: 0, count: 16), attestation: "none",
                           transports: ["usb"], name: "Key", createdAt: TestTime.at(1))
    }

    @Test(arguments: StoreBackends.all)
    func theSecurityKeyStepNeedsAKeyAndTheLastFactorStays(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let store = db.secondFactors
            #expect(try await store.enableWebAuthnSecondStep(userID: "u1", at: TestTime.at(1)) == false, "no key to answer with")
            #expect(try await store.webAuthnSecondStep(userID: "u1") == false)
            #expect(try await store.enableWebAuthnSecondStep(userID: "ghost", at: TestTime.at(1)) == false)
            try await db.webAuthnCredentials.create(Self.key([1]))
            try await db.webAuthnCredentials.create(Self.key([2]))
            #expect(try await store.enableWebAuthnSecondStep(userID: "u1", at: TestTime.at(2)))
            #expect(try await store.enableWebAuthnSecondStep(userID: "u1", at: TestTime.at(3)), "on already: still on")
            #expect(try await store.webAuthnSecondStep(userID: "u1"))
            // The only factor: neither the step nor the last key goes; one of two keys may.
            #expect(try await store.removeUnlessLast(.webAuthn, userID: "u1") == .lastFactor)
            #expect(try await store.removeUnlessLast(.totp, userID: "u1") == .notEnrolled)
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: "u1") == .deleted)
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: [2], userID: "u1") == .lastSecondFactor)
            #expect(try await db.webAuthnCredentials.credentials(userID: "u1").count == 1)
            // With an authenticator app beside it, either goes, but not both.
            _ = try await store.startTOTP(Self.factor())
            #expect(try await store.removeUnlessLast(.totp, userID: "u1") == .notEnrolled, "a pending app is no factor")
            _ = try await store.confirmTOTP(userID: "u1", step: 1, at: TestTime.at(4))
            let outcomes = try await withThrowingTaskGroup(of: SecondFactorRemoval.self) { group in
                for kind in SecondFactorKind.allCases { group.addTask { try await store.removeUnlessLast(kind, userID: "u1") } }
                return try await group.reduce(into: [SecondFactorRemoval]()) { $0.append($1) }
            }
            #expect(outcomes.sorted { "\($0)" < "\($1)" } == [.lastFactor, .removed])
            #expect(try await store.webAuthnSecondStep(userID: "u1") != (try await store.totp(userID: "u1") != nil), "exactly one remains")
            let wasOn = try await store.webAuthnSecondStep(userID: "u1")
            #expect(try await store.disableWebAuthnSecondStep(userID: "u1") == wasOn)
            #expect(try await store.webAuthnSecondStep(userID: "u1") == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func theLastKeyTakesTheStepWithItWhenAnAppRemains(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let store = db.secondFactors
            try await db.webAuthnCredentials.create(Self.key([1]))
            #expect(try await store.enableWebAuthnSecondStep(userID: "u1", at: TestTime.at(1)))
            _ = try await store.startTOTP(Self.factor())
            _ = try await store.confirmTOTP(userID: "u1", step: 1, at: TestTime.at(2))
            #expect(try await db.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: "u1") == .deleted)
            // A key added later does not turn the step back on by itself.
            try await db.webAuthnCredentials.create(Self.key([2]))
            #expect(try await store.webAuthnSecondStep(userID: "u1") == false)
            _ = try await db.users.delete(id: "u1")
            #expect(try await store.webAuthnSecondStep(userID: "u1") == false)
        }
    }
}
