import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// ``SecondFactors`` on a real SQLite database with a manual clock: the TOTP window and drift, replay,
/// recovery codes, the attempt limit and the sealed secret.
@Suite struct SecondFactorsTests {
    let clock = ManualClock()
    let database: any GatehouseDatabase
    let factors: SecondFactors
    let user: User
    let context = ClientContext(ip: "203.0.113.7", userAgent: "tests")

    init() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-2fa-\(UUID().uuidString).sqlite").path
        database = try await SQLiteDatabase.open(url: "sqlite://" + path)
        _ = try await database.migrate()
        factors = Self.factors(database, clock: clock, key: KeyEncryptionKey.generate())
        user = User(id: RecordID.random(), email: "ada@example.org", passwordHash: "x", emailVerified: true, createdAt: clock.now)
        try await database.users.create(user)
    }

    /// `requiredBy`: the applications requiring two-step sign-in that the user uses.
    static func factors(_ database: any GatehouseDatabase, clock: ManualClock, key: KeyEncryptionKey,
                        requiredBy: [String] = []) -> SecondFactors {
        SecondFactors(store: database.secondFactors, sealing: key, limiter: RateLimiter(store: database.rateLimits, clock: clock.identity),
                      limits: RateLimitPolicy(), audit: AuditTrail(store: database.auditLog, clock: clock.identity), clock: clock.identity,
                      issuer: "Example & Co", applicationsRequiringTwoStep: { _ in requiredBy })
    }

    func code(_ enrolment: SecondFactors.Enrolment, offset: Int64 = 0) -> String {
        let step = OneTimePassword.step(unixTime: Int64(clock.now.timeIntervalSince1970)) + offset
        return OneTimePassword.totp(secret: Base32.decode(enrolment.secret)!, step: step)
    }

    func events(_ type: AuditEventType) async throws -> [AuditEvent] {
        try await database.auditLog.search(AuditQuery(types: [type.rawValue], limit: 100)).map(\.event)
    }

    /// Enrolled and confirmed; the clock then moves past the confirming code's step.
    func enrolled() async throws -> (SecondFactors.Enrolment, [String]) {
        let enrolment = try await factors.beginTOTP(user: user)
        let codes = try #require(try await factors.confirmTOTP(user: user, code: code(enrolment), context: context))
        clock.advance(30)
        return (enrolment, codes)
    }

    @Test func enrolmentGivesAnOtpauthURIAndNeedsAFirstCode() async throws {
        let enrolment = try await factors.beginTOTP(user: user)
        #expect(enrolment.uri.hasPrefix("otpauth://totp/Example%20%26%20Co:ada@example.org?secret=\(enrolment.secret)&issuer=Example%20%26%20Co"))
        #expect(enrolment.uri.hasSuffix("&algorithm=SHA1&digits=6&period=30"))
        #expect(Base32.decode(enrolment.secret)?.count == 20)
        #expect(try await factors.isRequired(userID: user.id) == false, "pending until confirmed")
        #expect(try await factors.pendingTOTP(user: user) == enrolment)
        await #expect(throws: SecondFactorRefusal.wrongCode) {
            _ = try await factors.confirmTOTP(user: user, code: "000000" == code(enrolment) ? "111111" : "000000", context: context)
        }
        let codes = try await factors.confirmTOTP(user: user, code: code(enrolment), context: context)
        #expect(codes?.count == 10 && Set(codes ?? []).count == 10)
        #expect(try await factors.isRequired(userID: user.id))
        #expect(try await factors.status(userID: user.id) == SecondFactors.Status(totp: true, recoveryCodesLeft: 10))
        await #expect(throws: SecondFactorRefusal.alreadyEnrolled) { _ = try await factors.beginTOTP(user: user) }
        #expect(try await events(.secondFactorAdded).count == 1)
    }

    @Test func theSecretIsSealedAndBoundToItsUser() async throws {
        let (enrolment, _) = try await enrolled()
        let stored = try #require(try await database.secondFactors.totp(userID: user.id))
        let raw = try #require(Base32.decode(enrolment.secret))
        #expect(!stored.sealedSecret.containsSubsequence(raw), "never in the clear")
        // The row copied onto another account does not open there.
        let other = User(id: RecordID.random(), email: "eve@example.org", passwordHash: "x", emailVerified: true, createdAt: clock.now)
        try await database.users.create(other)
        _ = try await database.secondFactors.startTOTP(TOTPFactor(userID: other.id, sealedSecret: stored.sealedSecret, createdAt: clock.now))
        _ = try await database.secondFactors.confirmTOTP(userID: other.id, step: 1, at: clock.now)
        await #expect(throws: (any Error).self) { _ = try await factors.verify(userID: other.id, code: code(enrolment), context: context) }
        // Another server key opens nothing either.
        let stranger = Self.factors(database, clock: clock, key: KeyEncryptionKey.generate())
        await #expect(throws: (any Error).self) { _ = try await stranger.verify(userID: user.id, code: code(enrolment), context: context) }
    }

    struct WindowCase: Sendable, CustomTestStringConvertible {
        let offset: Int64
        let accepted: Bool
        var testDescription: String { "code of step \(offset >= 0 ? "+" : "")\(offset) → \(accepted ? "accepted" : "refused")" }
    }

    @Test(arguments: [WindowCase(offset: 0, accepted: true), WindowCase(offset: -1, accepted: true), WindowCase(offset: 1, accepted: true),
                      WindowCase(offset: -2, accepted: false), WindowCase(offset: 2, accepted: false), WindowCase(offset: 40, accepted: false)])
    func driftOfOneStepEitherSide(_ item: WindowCase) async throws {
        let (enrolment, _) = try await enrolled()
        clock.advance(120)
        if item.accepted {
            #expect(try await factors.verify(userID: user.id, code: code(enrolment, offset: item.offset), context: context) == .totp)
        } else {
            await #expect(throws: SecondFactorRefusal.wrongCode) {
                _ = try await factors.verify(userID: user.id, code: code(enrolment, offset: item.offset), context: context)
            }
        }
    }

    @Test func aCodeWorksOnceAndAnOlderOneNeverAfterIt() async throws {
        let (enrolment, _) = try await enrolled()
        let now = code(enrolment), previous = code(enrolment, offset: -1)
        #expect(try await factors.verify(userID: user.id, code: now, context: context) == .totp)
        await #expect(throws: SecondFactorRefusal.reusedCode) { _ = try await factors.verify(userID: user.id, code: now, context: context) }
        // The step before was not used, but a later one was: refused too (RFC 6238 §5.2).
        if previous != now {
            await #expect(throws: SecondFactorRefusal.reusedCode) { _ = try await factors.verify(userID: user.id, code: previous, context: context) }
        }
        clock.advance(30)
        #expect(try await factors.verify(userID: user.id, code: code(enrolment), context: context) == .totp)
        #expect(try await events(.secondFactorFailed).count == (previous != now ? 2 : 1))
    }

    @Test func concurrentSubmissionsOfOneCodeLetExactlyOneIn() async throws {
        let (enrolment, _) = try await enrolled()
        let typed = code(enrolment), factors = self.factors, userID = user.id, context = self.context
        let wins = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? await factors.verify(userID: userID, code: typed, context: context)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test func recoveryCodesWorkOnceInAnyCaseAndDashingAndDieWhenRegenerated() async throws {
        let (_, codes) = try await enrolled()
        #expect(codes.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
        #expect(try await factors.verify(userID: user.id, code: codes[0].uppercased().replacingOccurrences(of: "-", with: " "),
                                         context: context) == .recoveryCode)
        await #expect(throws: SecondFactorRefusal.wrongCode) { _ = try await factors.verify(userID: user.id, code: codes[0], context: context) }
        #expect(try await factors.status(userID: user.id).recoveryCodesLeft == 9)
        let fresh = try await factors.regenerateRecoveryCodes(userID: user.id, context: context)
        #expect(Set(fresh).isDisjoint(with: codes))
        await #expect(throws: SecondFactorRefusal.wrongCode) { _ = try await factors.verify(userID: user.id, code: codes[1], context: context) }
        #expect(try await factors.verify(userID: user.id, code: fresh[9], context: context) == .recoveryCode)
        #expect(try await events(.recoveryCodeUsed).count == 2)
        #expect(try await events(.recoveryCodesGenerated).count == 2)
    }

    @Test func failuresAreLimitedPerAccountAndClientThenEveryCodeWaits() async throws {
        let (enrolment, _) = try await enrolled()
        let wrong = code(enrolment) == "123456" ? "654321" : "123456"
        for _ in 0..<5 {
            await #expect(throws: SecondFactorRefusal.wrongCode) { _ = try await factors.verify(userID: user.id, code: wrong, context: context) }
        }
        // The sixth try waits, even with the right code; another address of the same account is not held back.
        do {
            _ = try await factors.verify(userID: user.id, code: code(enrolment), context: context)
            Issue.record("the right code was accepted while rate-limited")
        } catch SecondFactorRefusal.rateLimited(let wait) {
            #expect(wait > 0 && wait <= 60)
        }
        let elsewhere = ClientContext(ip: "198.51.100.9", userAgent: "tests")
        #expect(try await factors.verify(userID: user.id, code: code(enrolment), context: elsewhere) == .totp)
        #expect(try await events(.secondFactorRateLimited).count == 1)
        clock.advance(61)
        clock.advance(30)
        #expect(try await factors.verify(userID: user.id, code: code(enrolment), context: context) == .totp)
    }

    @Test func removingEverythingLeavesThePasswordAlone() async throws {
        let (enrolment, codes) = try await enrolled()
        #expect(try await factors.removeAll(userID: user.id, context: context))
        #expect(try await factors.isRequired(userID: user.id) == false)
        #expect(try await factors.status(userID: user.id) == SecondFactors.Status(totp: false, recoveryCodesLeft: 0))
        await #expect(throws: SecondFactorRefusal.wrongCode) { _ = try await factors.verify(userID: user.id, code: code(enrolment), context: context) }
        await #expect(throws: SecondFactorRefusal.wrongCode) { _ = try await factors.verify(userID: user.id, code: codes[2], context: context) }
        #expect(try await factors.removeAll(userID: user.id, context: context) == false)
        _ = try await enrolled()
        #expect(try await factors.removeAll(userID: user.id, context: context, by: "admin:backoffice"))
        let reset = try await events(.secondFactorsReset)
        #expect(reset.count == 1 && reset.first?.details.contains("admin:backoffice") == true)
    }

    @Test func theHeldSecondStepIsSingleUseAndBoundToItsBrowser() async throws {
        let steps = SecondStepChallenges(store: database.oneTimeTokens, clock: clock.identity)
        let id = try await steps.hold(userID: user.id, methods: ["pwd"], returnTo: "/account", browserBinding: "p:browser-a")
        await #expect(throws: SecondFactorRefusal.challengeExpired) { _ = try await steps.take(id, browserBinding: "p:browser-b") }
        let other = try await steps.hold(userID: user.id, methods: ["pwd"], returnTo: nil, browserBinding: "p:browser-a")
        let pending = try await steps.take(other, browserBinding: "p:browser-a")
        #expect(pending.userID == user.id && pending.methods == ["pwd"] && pending.returnTo == nil)
        await #expect(throws: SecondFactorRefusal.challengeExpired) { _ = try await steps.take(other, browserBinding: "p:browser-a") }
        // A new challenge after a wrong code keeps the first one's deadline.
        let again = try await steps.hold(pending)
        clock.advance(SecondStepChallenges.lifetime + 1)
        await #expect(throws: SecondFactorRefusal.challengeExpired) { _ = try await steps.take(again, browserBinding: "p:browser-a") }
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
