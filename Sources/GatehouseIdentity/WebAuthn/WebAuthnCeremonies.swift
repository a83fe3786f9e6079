import Foundation
import GatehouseCrypto
import GatehouseStore

/// The options a page or app passes to `navigator.credentials.create()` (WebAuthn §5.4).
public struct RegistrationOptions: Sendable {
    /// The challenge to send (base64url on the wire); only its hash is stored.
    public let challenge: [UInt8]
    public let relyingPartyID: String
    public let relyingPartyName: String
    /// The user's opaque handle (`user.id`), never the email.
    public let userHandle: [UInt8]
    /// `user.name`: what the authenticator shows to pick this account (the email).
    public let userName: String
    public let userDisplayName: String
    public let algorithms: [COSEAlgorithm]
    /// The user's registered credentials, so an authenticator holding one declines to make another.
    public let excludeCredentials: [WebAuthnCredential]
    public let timeout: TimeInterval
}

/// The options a page or app passes to `navigator.credentials.get()` (WebAuthn §5.5).
public struct AuthenticationOptions: Sendable {
    public let challenge: [UInt8]
    public let relyingPartyID: String
    /// Empty for a discoverable-credential sign-in (the authenticator offers what it holds).
    public let allowCredentials: [WebAuthnCredential]
    /// `required` when set, else `preferred`.
    public let requireUserVerification: Bool
    public let timeout: TimeInterval
}

/// A finished authentication: the user and the credential that proved it.
public struct PasskeySignIn: Sendable {
    public let userID: String
    public let credential: WebAuthnCredential
    /// UV was performed: the sign-in proved possession and a PIN or biometric (`amr` `user`).
    public let userVerified: Bool
}

/// WebAuthn registration and authentication with their storage: challenges single-use, short-lived
/// and bound to the flow that asked; credentials unique; counters that go backwards refused and
/// audited; every refusal audited with its reason.
public struct WebAuthnCeremonies: Sendable {
    /// Settable inside the module so a native app's ceremony can accept that app's origins (`accepting(origins:)`).
    public internal(set) var relyingParty: WebAuthnRelyingParty
    let credentials: any WebAuthnCredentialStore
    let challenges: any WebAuthnChallengeStore
    let users: any UserStore
    let audit: AuditTrail
    let clock: IdentityClock
    /// How long a challenge may be answered (WebAuthn §15.4 suggests 300–600 s for UV ceremonies).
    public let challengeLifetime: TimeInterval

    /// Bytes of a new user handle (WebAuthn §14.6.1: random, at most 64).
    public static let userHandleLength = 32
    /// Bytes of a challenge (WebAuthn §13.4.3: at least 16).
    public static let challengeLength = 32

    public init(relyingParty: WebAuthnRelyingParty, credentials: any WebAuthnCredentialStore, challenges: any WebAuthnChallengeStore,
                users: any UserStore, audit: AuditTrail, clock: IdentityClock = .system, challengeLifetime: TimeInterval = 300) {
        self.relyingParty = relyingParty
        self.credentials = credentials
        self.challenges = challenges
        self.users = users
        self.audit = audit
        self.clock = clock
        self.challengeLifetime = challengeLifetime
    }

    func issueChallenge(_ ceremony: WebAuthnChallenge.Ceremony, userID: String?, flowBinding: TokenHash,
                                requireUserVerification: Bool) async throws -> [UInt8] {
        let challenge = SecureRandom.bytes(Self.challengeLength)
        let now = clock.now()
        try await challenges.create(WebAuthnChallenge(
            challengeHash: TokenHash(SHA256.hash(challenge)), ceremony: ceremony, userID: userID, flowBinding: flowBinding,
            requireUserVerification: requireUserVerification, createdAt: now, expiresAt: now.addingTimeInterval(challengeLifetime)))
        return challenge
    }

    /// Consumes the challenge named in `clientDataJSON`: it must exist, be unexpired, be for
    /// `ceremony`, and have been issued to the flow holding `flowBinding` (and to `userID` when one
    /// is given). The challenge is gone afterwards whatever the outcome, so a response is answered once.
    func consumeChallenge(_ clientDataJSON: [UInt8], ceremony: WebAuthnChallenge.Ceremony, flowBinding: TokenHash,
                                  userID: String?) async throws -> WebAuthnChallenge {
        let clientData = try CollectedClientData(json: clientDataJSON)
        guard let challenge = try await challenges.consume(challengeHash: TokenHash(SHA256.hash(clientData.challenge)), now: clock.now()),
              challenge.ceremony == ceremony,
              ConstantTime.equals(challenge.flowBinding.bytes, flowBinding.bytes),
              userID == nil || challenge.userID == userID else { throw WebAuthnRefusal.unknownChallenge }
        return challenge
    }

    // MARK: Registration

    /// Starts adding a credential to a signed-in user's account. `flowBinding` is the hash of a
    /// secret only the asking flow holds (its session id, a native request id).
    public func startRegistration(user: User, flowBinding: TokenHash, requireUserVerification: Bool = true) async throws -> RegistrationOptions {
        let handle = try await credentials.userHandle(userID: user.id, proposed: SecureRandom.bytes(Self.userHandleLength))
        let existing = try await credentials.credentials(userID: user.id)
        let challenge = try await issueChallenge(.registration, userID: user.id, flowBinding: flowBinding,
                                                 requireUserVerification: requireUserVerification)
        return RegistrationOptions(challenge: challenge, relyingPartyID: relyingParty.id, relyingPartyName: relyingParty.name,
                                   userHandle: handle, userName: user.email, userDisplayName: user.displayName ?? user.email,
                                   algorithms: relyingParty.algorithms, excludeCredentials: existing, timeout: challengeLifetime)
    }

    /// Finishes a registration started by ``startRegistration(user:flowBinding:requireUserVerification:)``
    /// and stores the credential under `name`. Throws ``WebAuthnRefusal`` (audited) when any check fails.
    public func finishRegistration(userID: String, flowBinding: TokenHash, response: RegistrationResponse, name: String,
                                   context: ClientContext) async throws -> WebAuthnCredential {
        do {
            let challenge = try await consumeChallenge(response.clientDataJSON, ceremony: .registration, flowBinding: flowBinding, userID: userID)
            let verified = try relyingParty.verifyRegistration(response, challengeHash: challenge.challengeHash.bytes,
                                                               requireUserVerification: challenge.requireUserVerification)
            let credential = WebAuthnCredential(
                credentialID: verified.credentialID, userID: userID, publicKey: verified.publicKey, algorithm: verified.algorithm.rawValue,
                signCount: verified.signCount, backupEligible: verified.backupEligible, backedUp: verified.backedUp,
                userVerified: verified.userVerified, aaguid: verified.aaguid, attestation: verified.attestation,
                transports: Array(response.transports.prefix(8).map { String($0.prefix(32)) }), name: Self.cleanName(name),
                createdAt: clock.now())
            do {
                try await credentials.create(credential)
            } catch let error as StoreError where error.kind == .conflict {
                throw WebAuthnRefusal.credentialExists
            }
            await audit.record(.passkeyAdded, userId: userID, context: context, details: [
                "credential": Base64URL.encode(credential.credentialID), "synced": credential.backedUp ? "yes" : "no",
                "attestation": credential.attestation,
            ])
            return credential
        } catch let refusal as WebAuthnRefusal {
            await audit.record(.passkeyRegistrationFailed, userId: userID, context: context, details: ["reason": refusal.reason])
            throw refusal
        }
    }

    /// A credential name as shown on the account page: trimmed, control characters dropped, at
    /// most 64 characters, "Passkey" when nothing is left.
    public static func cleanName(_ name: String) -> String {
        let kept = String(String.UnicodeScalarView(name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
        let trimmed = String(kept.trimmingCharacters(in: .whitespacesAndNewlines).prefix(64))
        return trimmed.isEmpty ? "Passkey" : trimmed
    }

    // MARK: Authentication

    /// Starts a sign-in. With `user` nil it is a discoverable-credential sign-in (the passkey button,
    /// conditional mediation); with a user, their credentials are listed (a second factor).
    public func startAuthentication(user: User?, flowBinding: TokenHash, requireUserVerification: Bool = true) async throws -> AuthenticationOptions {
        var allowed: [WebAuthnCredential] = []
        if let user { allowed = try await credentials.credentials(userID: user.id) }
        let challenge = try await issueChallenge(.authentication, userID: user?.id, flowBinding: flowBinding,
                                                 requireUserVerification: requireUserVerification)
        return AuthenticationOptions(challenge: challenge, relyingPartyID: relyingParty.id, allowCredentials: allowed,
                                     requireUserVerification: requireUserVerification, timeout: challengeLifetime)
    }

    /// Finishes a sign-in: the credential must be registered, belong to the user the challenge was
    /// issued to (when it named one) and to the user handle the response reports, sign correctly, and
    /// move its counter forward. Throws ``WebAuthnRefusal`` (audited) otherwise.
    public func finishAuthentication(flowBinding: TokenHash, response: AssertionResponse, context: ClientContext) async throws -> PasskeySignIn {
        var userID: String?
        do {
            let challenge = try await consumeChallenge(response.clientDataJSON, ceremony: .authentication, flowBinding: flowBinding, userID: nil)
            guard let credential = try await credentials.credential(id: response.credentialID) else { throw WebAuthnRefusal.unknownCredential }
            userID = credential.userID
            if let expected = challenge.userID, expected != credential.userID { throw WebAuthnRefusal.unknownCredential }
            if let handle = response.userHandle {
                guard try await credentials.userID(handle: handle) == credential.userID else { throw WebAuthnRefusal.unknownCredential }
            }
            let verified = try relyingParty.verifyAssertion(response, publicKey: credential.publicKey, challengeHash: challenge.challengeHash.bytes,
                                                            requireUserVerification: challenge.requireUserVerification)
            // §6.1.3: BE never changes for a credential.
            guard verified.backupEligible == credential.backupEligible else { throw WebAuthnRefusal.inconsistentBackupFlags }
            // §6.1.1: a counter that is kept must increase; zero on both sides means the authenticator keeps none.
            if verified.signCount != 0 || credential.signCount != 0, verified.signCount <= credential.signCount {
                await audit.record(.passkeySignCountRegression, userId: credential.userID, context: context, details: [
                    "credential": Base64URL.encode(credential.credentialID), "stored": String(credential.signCount),
                    "presented": String(verified.signCount),
                ])
                throw WebAuthnRefusal.signCountRegression
            }
            let now = clock.now()
            guard try await credentials.recordUse(credentialID: credential.credentialID, previousSignCount: credential.signCount,
                                                  signCount: verified.signCount, backedUp: verified.backedUp, at: now) else {
                // Another assertion moved the counter first.
                throw WebAuthnRefusal.signCountRegression
            }
            guard let user = try await users.find(id: credential.userID), !user.disabled else { throw WebAuthnRefusal.unknownCredential }
            var used = credential
            used.signCount = verified.signCount
            used.backedUp = verified.backedUp
            used.lastUsedAt = now
            return PasskeySignIn(userID: user.id, credential: used, userVerified: verified.userVerified)
        } catch let refusal as WebAuthnRefusal {
            await audit.record(.passkeySignInFailed, userId: userID, context: context, details: ["reason": refusal.reason])
            throw refusal
        }
    }
}
