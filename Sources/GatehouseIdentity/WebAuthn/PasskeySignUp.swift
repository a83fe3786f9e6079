import Foundation
import GatehouseCrypto
import GatehouseStore

/// Sign-up with a passkey and no password. The address is proven by the mailed link like any sign-up's;
/// until then the account is unverified, with the usual rules (and the ownership claim removes the passkey
/// when the address is proven by someone who was not signed in with it).
///
/// The answer is the same whether or not the address has an account, as for a password sign-up: for a taken
/// address nothing is stored (the new passkey stays orphaned on the authenticator) and its owner is told by mail.
public struct PasskeySignUp: Sendable {
    let accounts: AccountService
    let ceremonies: WebAuthnCeremonies

    public init(accounts: AccountService, ceremonies: WebAuthnCeremonies) {
        self.accounts = accounts
        self.ceremonies = ceremonies
    }

    /// The challenge is bound to the browser (`browserBinding`, a secret only it holds) and to the address,
    /// so it answers only the sign-up it was issued for.
    static func binding(_ browserBinding: [UInt8], email: EmailAddress) -> TokenHash {
        TokenHash(SHA256.hash(Array("passkey-sign-up\u{0}".utf8) + browserBinding + Array("\u{0}\(email.value)".utf8)))
    }

    /// The new account's user handle: derived from the (random, single-use) challenge, so nothing but the
    /// challenge needs keeping between the two requests, and it names no one.
    static func userHandle(challenge: [UInt8]) -> [UInt8] {
        SHA256.hash(Array("gatehouse-user-handle\u{0}".utf8) + challenge)
    }

    /// The options for `navigator.credentials.create()`; limited like a password sign-up, per address of the client.
    public func start(email rawEmail: String, displayName: String?, browserBinding: [UInt8], context: ClientContext) async throws
        -> RegistrationOptions {
        if let wait = try await accounts.limiter.hit(accounts.limits.signUpPerIP, key: accounts.limits.ipKey(context.ip)) {
            throw AccountError.rateLimited(retryAfter: wait)
        }
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        let challenge = try await ceremonies.issueChallenge(.registration, userID: nil, flowBinding: Self.binding(browserBinding, email: email),
                                                            requireUserVerification: true)
        let name = displayName?.trimmingASCIIWhitespace()
        return RegistrationOptions(challenge: challenge, relyingPartyID: ceremonies.relyingParty.id, relyingPartyName: ceremonies.relyingParty.name,
                                   userHandle: Self.userHandle(challenge: challenge), userName: email.value,
                                   userDisplayName: (name?.isEmpty ?? true) ? email.value : name!, algorithms: ceremonies.relyingParty.algorithms,
                                   excludeCredentials: [], timeout: ceremonies.challengeLifetime)
    }

    /// Verifies the registration and creates the passwordless, unverified account holding it — or, for an
    /// address that has an account, stores nothing and reports the owner. Throws ``WebAuthnRefusal`` (audited).
    public func finish(email rawEmail: String, displayName: String?, browserBinding: [UInt8], response: RegistrationResponse,
                       name: String, context: ClientContext) async throws -> AccountService.SignUpOutcome {
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        let verified: VerifiedRegistration, challengeBytes: [UInt8]
        do {
            let challenge = try await ceremonies.consumeChallenge(response.clientDataJSON, ceremony: .registration,
                                                                  flowBinding: Self.binding(browserBinding, email: email), userID: nil)
            // A challenge issued to a signed-in account's "Add a passkey" is not a sign-up's.
            guard challenge.userID == nil else { throw WebAuthnRefusal.unknownChallenge }
            verified = try ceremonies.relyingParty.verifyRegistration(response, challengeHash: challenge.challengeHash.bytes,
                                                                      requireUserVerification: true)
            challengeBytes = try CollectedClientData(json: response.clientDataJSON).challenge
        } catch let refusal as WebAuthnRefusal {
            await accounts.audit.record(.passkeyRegistrationFailed, userId: nil, context: context, details: ["reason": refusal.reason, "via": "sign_up"])
            throw refusal
        }
        if let existing = try await accounts.users.find(email: email.value) { return .alreadyRegistered(existing) }
        if try await ceremonies.credentials.credential(id: verified.credentialID) != nil { throw WebAuthnRefusal.credentialExists }
        let now = ceremonies.clock.now()
        let trimmed = displayName?.trimmingASCIIWhitespace()
        let user = User(id: RecordID.random(), email: email.value, displayName: (trimmed?.isEmpty ?? true) ? nil : trimmed,
                        passwordHash: nil, emailVerified: false, disabled: false, createdAt: now, updatedAt: now)
        do { try await accounts.users.create(user) } catch let error as StoreError where error.kind == .conflict {
            // Lost a race with a concurrent sign-up of the same address: the same answer as above.
            if let winner = try await accounts.users.find(email: email.value) { return .alreadyRegistered(winner) }
            throw error
        }
        _ = try await ceremonies.credentials.userHandle(userID: user.id, proposed: Self.userHandle(challenge: challengeBytes))
        let credential = WebAuthnCredential(
            credentialID: verified.credentialID, userID: user.id, publicKey: verified.publicKey, algorithm: verified.algorithm.rawValue,
            signCount: verified.signCount, backupEligible: verified.backupEligible, backedUp: verified.backedUp,
            userVerified: verified.userVerified, aaguid: verified.aaguid, attestation: verified.attestation,
            transports: Array(response.transports.prefix(8).map { String($0.prefix(32)) }), name: WebAuthnCeremonies.cleanName(name),
            createdAt: now)
        do { try await ceremonies.credentials.create(credential) } catch let error as StoreError where error.kind == .conflict {
            // The credential id was taken between the check and the insert: no account without its way in.
            _ = try await accounts.users.delete(id: user.id)
            throw WebAuthnRefusal.credentialExists
        }
        await accounts.audit.record(.signUp, userId: user.id, context: context, details: ["method": "passkey"])
        await accounts.audit.record(.passkeyAdded, userId: user.id, context: context, details: [
            "credential": Base64URL.encode(credential.credentialID), "synced": credential.backedUp ? "yes" : "no",
            "attestation": credential.attestation,
        ])
        return .created(user)
    }
}
