import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import GatehouseWebAuthnTesting
import Testing

/// Registration and sign-in through ``WebAuthnCeremonies`` on a real SQLite database, driven by a
/// software authenticator, with the attacks the relying party must refuse.
@Suite struct WebAuthnCeremoniesTests {
    let clock = ManualClock()
    let database: any GatehouseDatabase
    let ceremonies: WebAuthnCeremonies
    let user: User
    let flow = TokenHash(SHA256.hash("the flow's own secret"))

    init() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-webauthn-\(UUID().uuidString).sqlite").path
        database = try await SQLiteDatabase.open(url: "sqlite://" + path)
        _ = try await database.migrate()
        let relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])
        ceremonies = WebAuthnCeremonies(relyingParty: relyingParty, credentials: database.webAuthnCredentials,
                                        challenges: database.webAuthnChallenges, users: database.users,
                                        audit: AuditTrail(store: database.auditLog, clock: clock.identity), clock: clock.identity)
        user = User(id: RecordID.random(), email: "ada@example.org", emailVerified: true, createdAt: clock.now)
        try await database.users.create(user)
    }

    func events(_ type: AuditEventType) async throws -> [AuditEvent] {
        try await database.auditLog.search(AuditQuery(types: [type.rawValue], limit: 100)).map(\.event)
    }

    /// Registers one credential and returns the authenticator holding it.
    func registered(_ authenticator: SoftwareAuthenticator = SoftwareAuthenticator(), algorithm: JWSAlgorithm = .es256,
                    for owner: User? = nil) async throws -> SoftwareAuthenticator {
        let owner = owner ?? user
        let options = try await ceremonies.startRegistration(user: owner, flowBinding: flow)
        let response = try authenticator.register(challenge: options.challenge, userHandle: options.userHandle, algorithm: algorithm)
        _ = try await ceremonies.finishRegistration(userID: owner.id, flowBinding: flow, response: response, name: "Laptop",
                                                    context: .unknown)
        return authenticator
    }

    @Test(arguments: [JWSAlgorithm.es256, .edDSA, .rs256])
    func registersAndSignsInWithADiscoverableCredential(_ algorithm: JWSAlgorithm) async throws {
        let authenticator = try await registered(algorithm: algorithm)
        let stored = try await database.webAuthnCredentials.credentials(userID: user.id)
        #expect(stored.count == 1)
        #expect(stored.first?.name == "Laptop")
        #expect(stored.first?.attestation == "none")
        #expect(stored.first?.userVerified == true)
        #expect(try await events(.passkeyAdded).count == 1)

        clock.advance(60)
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        #expect(options.allowCredentials.isEmpty, "a discoverable sign-in names no credential")
        let signIn = try await ceremonies.finishAuthentication(
            flowBinding: flow, response: try authenticator.assert(challenge: options.challenge), context: .unknown)
        #expect(signIn.userID == user.id)
        #expect(signIn.userVerified)
        let after = try await database.webAuthnCredentials.credential(id: authenticator.credentials[0].id)
        #expect(after?.signCount == 2)
        #expect(after?.lastUsedAt == clock.now)
    }

    @Test func theUserHandleIsRandomStableAndNotTheEmail() async throws {
        let first = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        let second = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        #expect(first.userHandle == second.userHandle)
        #expect(first.userHandle.count == WebAuthnCeremonies.userHandleLength)
        #expect(!String(decoding: first.userHandle, as: UTF8.self).contains("ada"))
        #expect(first.challenge != second.challenge)
        let other = User(id: RecordID.random(), email: "bob@example.org", createdAt: clock.now)
        try await database.users.create(other)
        #expect(try await ceremonies.startRegistration(user: other, flowBinding: flow).userHandle != first.userHandle)
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let authenticator = try await registered()
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        let assertion = try authenticator.assert(challenge: options.challenge)
        _ = try await ceremonies.finishAuthentication(flowBinding: flow, response: assertion, context: .unknown)
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: assertion, context: .unknown)
        }
        #expect(try await events(.passkeySignInFailed).first?.details.contains("unknown_challenge") == true)
    }

    @Test func concurrentRepliesToOneChallengeLetExactlyOneIn() async throws {
        let authenticator = try await registered()
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        let assertion = try authenticator.assert(challenge: options.challenge)
        let ceremonies = self.ceremonies, flow = self.flow
        let wins = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { (try? await ceremonies.finishAuthentication(flowBinding: flow, response: assertion, context: .unknown)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test func aChallengeFromAnotherFlowOrCeremonyIsRefusedAndUsedUp() async throws {
        let authenticator = try await registered()
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: TokenHash(SHA256.hash("another browser")))
        let assertion = try authenticator.assert(challenge: options.challenge)
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: assertion, context: .unknown)
        }
        // The challenge is gone: the rightful flow cannot use it after the failed attempt either.
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishAuthentication(flowBinding: TokenHash(SHA256.hash("another browser")), response: assertion,
                                                      context: .unknown)
        }
        // A registration challenge cannot finish a sign-in.
        let registration = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: registration.challenge),
                                                      context: .unknown)
        }
    }

    @Test func anExpiredChallengeIsRefused() async throws {
        let authenticator = try await registered()
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        clock.advance(ceremonies.challengeLifetime + 1)
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: options.challenge),
                                                      context: .unknown)
        }
    }

    @Test func wrongOriginRPIDTypeAndMissingFlagsAreRefused() async throws {
        let authenticator = try await registered()
        func attempt(_ refusal: WebAuthnRefusal, _ make: ([UInt8]) throws -> AssertionResponse) async throws {
            let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
            await #expect(throws: refusal) {
                try await ceremonies.finishAuthentication(flowBinding: flow, response: try make(options.challenge), context: .unknown)
            }
        }
        try await attempt(.wrongOrigin) { try authenticator.assert(challenge: $0, origin: "https://evil.example") }
        try await attempt(.wrongCeremonyType) { try authenticator.assert(challenge: $0, type: "webauthn.create") }
        authenticator.rpID = "evil.example"
        try await attempt(.wrongRelyingParty) { try authenticator.assert(challenge: $0) }
        authenticator.rpID = "example.org"
        authenticator.flags = AuthenticatorData.flagUV
        try await attempt(.userNotPresent) { try authenticator.assert(challenge: $0) }
        authenticator.flags = AuthenticatorData.flagUP
        try await attempt(.userNotVerified) { try authenticator.assert(challenge: $0) }
        authenticator.flags = AuthenticatorData.flagUP | AuthenticatorData.flagUV | AuthenticatorData.flagBS
        try await attempt(.inconsistentBackupFlags) { try authenticator.assert(challenge: $0) }
        #expect(try await events(.passkeySignInFailed).count == 6)
    }

    @Test func aCounterThatGoesBackIsRefusedAndAudited() async throws {
        let authenticator = try await registered()
        for _ in 0..<2 {
            let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
            _ = try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: options.challenge),
                                                          context: .unknown)
        }
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.signCountRegression) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: options.challenge, signCount: 2),
                                                      context: .unknown)
        }
        let audited = try await events(.passkeySignCountRegression)
        #expect(audited.count == 1)
        #expect(audited.first?.userId == user.id)
        #expect(try await database.webAuthnCredentials.credential(id: authenticator.credentials[0].id)?.signCount == 3)
    }

    @Test func aSyncedPasskeyWithoutACounterSignsInRepeatedly() async throws {
        let authenticator = SoftwareAuthenticator()
        authenticator.counterStep = 0
        authenticator.flags |= AuthenticatorData.flagBE | AuthenticatorData.flagBS
        _ = try await registered(authenticator)
        let stored = try #require(try await database.webAuthnCredentials.credentials(userID: user.id).first)
        #expect(stored.backupEligible && stored.backedUp && stored.signCount == 0)
        for _ in 0..<3 {
            let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
            _ = try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: options.challenge),
                                                          context: .unknown)
        }
        // BE cannot change for a credential.
        authenticator.flags = AuthenticatorData.flagUP | AuthenticatorData.flagUV
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.inconsistentBackupFlags) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try authenticator.assert(challenge: options.challenge),
                                                      context: .unknown)
        }
    }

    @Test func anotherUsersCredentialOrHandleIsRefused() async throws {
        let other = User(id: RecordID.random(), email: "bob@example.org", createdAt: clock.now)
        try await database.users.create(other)
        let bobs = try await registered(for: other)
        let adas = try await registered()
        // A second factor for Ada: Bob's credential does not count.
        let forAda = try await ceremonies.startAuthentication(user: user, flowBinding: flow)
        #expect(forAda.allowCredentials.map(\.credentialID) == [adas.credentials[0].id])
        await #expect(throws: WebAuthnRefusal.unknownCredential) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try bobs.assert(challenge: forAda.challenge), context: .unknown)
        }
        // Bob's credential claiming Ada's user handle.
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        let adaHandle = adas.credentials[0].userHandle
        await #expect(throws: WebAuthnRefusal.unknownCredential) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try bobs.assert(challenge: options.challenge, userHandle: .some(adaHandle)),
                                                      context: .unknown)
        }
        // A credential nobody registered.
        let stranger = SoftwareAuthenticator()
        _ = try stranger.register(challenge: [1], userHandle: adaHandle)
        let third = try await ceremonies.startAuthentication(user: nil, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.unknownCredential) {
            try await ceremonies.finishAuthentication(flowBinding: flow, response: try stranger.assert(challenge: third.challenge), context: .unknown)
        }
    }

    @Test func registrationChecks() async throws {
        let authenticator = SoftwareAuthenticator()
        // A registration answering another user's challenge.
        let other = User(id: RecordID.random(), email: "bob@example.org", createdAt: clock.now)
        try await database.users.create(other)
        let bobs = try await ceremonies.startRegistration(user: other, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try await ceremonies.finishRegistration(userID: user.id, flowBinding: flow,
                                                    response: try authenticator.register(challenge: bobs.challenge, userHandle: bobs.userHandle),
                                                    name: "x", context: .unknown)
        }
        // Without UV.
        authenticator.flags = AuthenticatorData.flagUP
        var options = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.userNotVerified) {
            try await ceremonies.finishRegistration(userID: user.id, flowBinding: flow,
                                                    response: try authenticator.register(challenge: options.challenge, userHandle: options.userHandle),
                                                    name: "x", context: .unknown)
        }
        authenticator.flags = AuthenticatorData.flagUP | AuthenticatorData.flagUV
        // The attestation's credential id must be the response's.
        options = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        var mismatched = try authenticator.register(challenge: options.challenge, userHandle: options.userHandle)
        mismatched.credentialID = [9, 9, 9]
        await #expect(throws: WebAuthnRefusal.missingCredentialData) {
            try await ceremonies.finishRegistration(userID: user.id, flowBinding: flow, response: mismatched, name: "x", context: .unknown)
        }
        // Packed self attestation verifies; the same credential id again is refused.
        options = try await ceremonies.startRegistration(user: user, flowBinding: flow)
        let id = SecureRandom.bytes(16)
        let stored = try await ceremonies.finishRegistration(
            userID: user.id, flowBinding: flow,
            response: try authenticator.register(challenge: options.challenge, userHandle: options.userHandle, selfAttest: true, credentialID: id),
            name: "  Key\u{7}  ", context: .unknown)
        #expect(stored.attestation == "self")
        #expect(stored.name == "Key")
        options = try await ceremonies.startRegistration(user: other, flowBinding: flow)
        await #expect(throws: WebAuthnRefusal.credentialExists) {
            try await ceremonies.finishRegistration(
                userID: other.id, flowBinding: flow,
                response: try authenticator.register(challenge: options.challenge, userHandle: options.userHandle, credentialID: id),
                name: "x", context: .unknown)
        }
        #expect(try await database.webAuthnCredentials.credentials(userID: other.id).isEmpty)
        #expect(try await events(.passkeyRegistrationFailed).count == 4)
    }
}
