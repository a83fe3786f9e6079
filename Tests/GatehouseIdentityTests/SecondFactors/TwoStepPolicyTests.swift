import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// ``TwoStepPolicy`` row by row, then the same rules through ``SecondFactors`` on a real SQLite database: a
/// security key as the only second step, and the last factor never taken away while two-step sign-in is on.
@Suite struct TwoStepPolicyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let change: TwoStepPolicy.Change
        let totp: Bool
        let webAuthn: Bool
        var requiredBy: [String] = []
        let refusal: SecondFactorRefusal?
        var testDescription: String { "\(change) app=\(totp) keys=\(webAuthn) required=\(requiredBy) → \(refusal.map { "\($0)" } ?? "allowed")" }
    }

    static let rows: [Row] = [
        // The authenticator app goes only while the security keys stay the second step.
        Row(change: .removeAuthenticatorApp, totp: true, webAuthn: true, refusal: nil),
        Row(change: .removeAuthenticatorApp, totp: true, webAuthn: false, refusal: .lastFactor),
        Row(change: .removeAuthenticatorApp, totp: false, webAuthn: true, refusal: .notEnrolled),
        // And the security keys only while the app stays.
        Row(change: .stopSecurityKeys, totp: true, webAuthn: true, refusal: nil),
        Row(change: .stopSecurityKeys, totp: false, webAuthn: true, refusal: .lastFactor),
        Row(change: .stopSecurityKeys, totp: true, webAuthn: false, refusal: .notEnrolled),
        // The last key of a keys-only second step stays; any other key may go.
        Row(change: .removeCredential(last: true), totp: false, webAuthn: true, refusal: .lastFactor),
        Row(change: .removeCredential(last: true), totp: true, webAuthn: true, refusal: nil),
        Row(change: .removeCredential(last: false), totp: false, webAuthn: true, refusal: nil),
        Row(change: .removeCredential(last: true), totp: false, webAuthn: false, refusal: nil),
        // Turning off is the user's explicit choice, unless an application they use requires two-step sign-in.
        Row(change: .turnOff, totp: true, webAuthn: false, refusal: nil),
        Row(change: .turnOff, totp: false, webAuthn: true, refusal: nil),
        Row(change: .turnOff, totp: true, webAuthn: true, requiredBy: ["Back office"], refusal: .requiredByApplication("Back office")),
        Row(change: .turnOff, totp: false, webAuthn: false, requiredBy: ["Back office"], refusal: nil),
    ]

    @Test(arguments: rows)
    func theRule(_ row: Row) {
        let status = SecondFactors.Status(totp: row.totp, webAuthn: row.webAuthn, recoveryCodesLeft: 10)
        #expect(TwoStepPolicy.refusal(row.change, status: status, requiredBy: row.requiredBy) == row.refusal)
    }

    // MARK: Through SecondFactors

    let clock = ManualClock()
    let database: any GatehouseDatabase
    let user: User
    let context = ClientContext(ip: "203.0.113.7", userAgent: "tests")

    init() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-2step-\(UUID().uuidString).sqlite").path
        database = try await SQLiteDatabase.open(url: "sqlite://" + path)
        _ = try await database.migrate()
        user = User(id: RecordID.random(), email: "ada@example.org", passwordHash: "x", emailVerified: true, createdAt: clock.now)
        try await database.users.create(user)
    }

    func factors(requiredBy: [String] = []) -> SecondFactors {
        SecondFactorsTests.factors(database, clock: clock, key: KeyEncryptionKey.generate(), requiredBy: requiredBy)
    }

    func addKey(_ id: UInt8) async throws {
        try await database.webAuthnCredentials.create(WebAuthnCredential(
            credentialID: [id], userID: user.id, publicKey: [0xa5], algorithm: -7, signCount: 0, backupEligible: false, backedUp: false,
            userVerified: false, aaguid: [UInt8](repeating: 0, count: 16), attestation: "none", transports: ["usb"], name: "Key",
            createdAt: clock.now))
    }

    @Test func aSecurityKeyAloneTurnsTheSecondStepOnWithRecoveryCodes() async throws {
        let factors = factors()
        await #expect(throws: SecondFactorRefusal.noSecurityKey) { _ = try await factors.useSecurityKeys(userID: user.id, context: context) }
        #expect(try await factors.isRequired(userID: user.id) == false)
        try await addKey(1)
        #expect(try await factors.isRequired(userID: user.id) == false, "a registered key is not a second step until the user says so")
        let codes = try #require(try await factors.useSecurityKeys(userID: user.id, context: context))
        #expect(codes.count == 10)
        #expect(try await factors.isRequired(userID: user.id))
        #expect(try await factors.status(userID: user.id) == SecondFactors.Status(totp: false, webAuthn: true, recoveryCodesLeft: 10))
        #expect(try await factors.useSecurityKeys(userID: user.id, context: context) == nil, "codes left: none shown again")
        // The recovery code answers the second step of a keys-only account too.
        #expect(try await factors.verify(userID: user.id, code: codes[0], context: context) == .recoveryCode)
        let added = try await database.auditLog.search(AuditQuery(types: [AuditEventType.secondFactorAdded.rawValue], limit: 10))
        #expect(added.count == 1 && added[0].event.details.contains(#""factor":"webauthn""#), "\(added.map(\.event.details))")
    }

    @Test func theOnlySecondFactorStaysAndTurningOffIsTheWayOut() async throws {
        let factors = factors()
        try await addKey(1)
        _ = try await factors.useSecurityKeys(userID: user.id, context: context)
        await #expect(throws: SecondFactorRefusal.lastFactor) { try await factors.remove(.webAuthn, userID: user.id, context: context) }
        await #expect(throws: SecondFactorRefusal.notEnrolled) { try await factors.remove(.totp, userID: user.id, context: context) }
        #expect(try await database.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: user.id) == .lastSecondFactor)
        #expect(try await factors.isRequired(userID: user.id), "nothing was removed")
        #expect(try await factors.turnOff(userID: user.id, context: context))
        #expect(try await factors.status(userID: user.id) == SecondFactors.Status(totp: false, webAuthn: false, recoveryCodesLeft: 0))
        #expect(try await database.webAuthnCredentials.deleteUnlessLast(credentialID: [1], userID: user.id) == .deleted,
                "with two-step sign-in off the key is only a way in, and the password is another")
    }

    @Test func anApplicationRequiringTwoStepKeepsItOnButAnAdministratorCanReset() async throws {
        let factors = factors(requiredBy: ["Back office"])
        try await addKey(1)
        _ = try await factors.useSecurityKeys(userID: user.id, context: context)
        await #expect(throws: SecondFactorRefusal.requiredByApplication("Back office")) {
            _ = try await factors.turnOff(userID: user.id, context: context)
        }
        #expect(try await factors.isRequired(userID: user.id))
        #expect(try await factors.removeAll(userID: user.id, context: context, by: "admin:backoffice"))
        #expect(try await factors.isRequired(userID: user.id) == false)
    }
}
