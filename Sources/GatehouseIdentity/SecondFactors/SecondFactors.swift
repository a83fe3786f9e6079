import Foundation
import GatehouseCrypto
import GatehouseStore

/// TOTP authenticators and recovery codes of password accounts: enrolment, the code check of the
/// sign-in's second step, removal and the administrator's reset.
///
/// A code is single-use across processes: the store moves the account's last accepted time step
/// forward in one conditional statement, so of two submissions of one code exactly one wins, and a
/// code older than one already accepted is refused too. Failures are limited per account and client,
/// as password attempts are; the secret is sealed with AES-GCM under the server's key, bound to the user.
public struct SecondFactors: Sendable {
    /// What the account has.
    public struct Status: Sendable, Equatable {
        /// A confirmed authenticator app.
        public let totp: Bool
        /// The user's security keys and passkeys answer the second step (turned on, and one is registered).
        public let webAuthn: Bool
        public let recoveryCodesLeft: Int
        /// A second step is asked for after the password.
        public var isEnabled: Bool { totp || webAuthn }

        public init(totp: Bool, webAuthn: Bool = false, recoveryCodesLeft: Int) {
            self.totp = totp; self.webAuthn = webAuthn; self.recoveryCodesLeft = recoveryCodesLeft
        }
    }

    /// A pending enrolment: the secret for the user's app, as base32 and as an `otpauth://` URI.
    public struct Enrolment: Sendable, Equatable {
        public let secret: String
        public let uri: String
    }

    /// How a second step was passed.
    public enum Method: String, Sendable, Equatable {
        case totp, recoveryCode = "recovery_code"
    }

    let store: any SecondFactorStore
    let sealing: KeyEncryptionKey
    let limiter: RateLimiter
    let limits: RateLimitPolicy
    let audit: AuditTrail
    let clock: IdentityClock
    /// The `issuer` of the `otpauth://` URI: what authenticator apps show above the code.
    let issuer: String
    /// The names of the applications the user uses that require multi-factor sign-ins (``TwoStepPolicy``).
    let applicationsRequiringTwoStep: @Sendable (String) async throws -> [String]

    public init(store: any SecondFactorStore, sealing: KeyEncryptionKey, limiter: RateLimiter, limits: RateLimitPolicy, audit: AuditTrail,
                clock: IdentityClock, issuer: String,
                applicationsRequiringTwoStep: @escaping @Sendable (String) async throws -> [String] = { _ in [] }) {
        self.store = store; self.sealing = sealing; self.limiter = limiter; self.limits = limits; self.audit = audit
        self.clock = clock; self.issuer = issuer; self.applicationsRequiringTwoStep = applicationsRequiringTwoStep
    }

    public func status(userID: String) async throws -> Status {
        let factor = try await store.totp(userID: userID)
        return Status(totp: factor?.confirmedAt != nil, webAuthn: try await store.webAuthnSecondStep(userID: userID),
                      recoveryCodesLeft: try await store.unusedRecoveryCodes(userID: userID))
    }

    /// Whether a password sign-in of this account needs a second step: a confirmed authenticator app, or
    /// the security keys the user chose as the second step.
    public func isRequired(userID: String) async throws -> Bool {
        if try await store.totp(userID: userID)?.confirmedAt != nil { return true }
        return try await store.webAuthnSecondStep(userID: userID)
    }

    // MARK: Enrolment

    /// Starts (or restarts) setting up an authenticator app: a new secret, stored sealed and pending.
    public func beginTOTP(user: User) async throws -> Enrolment {
        let secret = SecureRandom.bytes(OneTimePassword.secretByteCount)
        let sealed = try sealing.seal(secret, keyID: Self.sealingLabel(user.id))
        guard try await store.startTOTP(TOTPFactor(userID: user.id, sealedSecret: sealed, createdAt: clock.now())) else {
            throw SecondFactorRefusal.alreadyEnrolled
        }
        return enrolment(secret: secret, account: user.email)
    }

    /// The pending enrolment again (the set-up page shown after a wrong first code).
    public func pendingTOTP(user: User) async throws -> Enrolment? {
        guard let factor = try await store.totp(userID: user.id), factor.confirmedAt == nil else { return nil }
        return enrolment(secret: try open(factor), account: user.email)
    }

    /// Confirms the pending authenticator with its first code; returns new recovery codes when the
    /// account had none left (shown once).
    public func confirmTOTP(user: User, code: String, context: ClientContext) async throws -> [String]? {
        guard let factor = try await store.totp(userID: user.id), factor.confirmedAt == nil else { throw SecondFactorRefusal.notEnrolled }
        let keys = limiterKeys(user.id, context)
        if let wait = try await waiting(keys) { throw SecondFactorRefusal.rateLimited(retryAfter: wait) }
        guard let typed = TOTPWindow.normalized(code),
              let step = TOTPWindow.matchingStep(code: typed, secret: try open(factor), unixTime: unixNow()) else {
            try await recordFailure(keys)
            throw SecondFactorRefusal.wrongCode
        }
        guard try await store.confirmTOTP(userID: user.id, step: step, at: clock.now()) else { throw SecondFactorRefusal.notEnrolled }
        try await limiter.reset(limits.secondFactorPerAccount, key: keys.client)
        await audit.record(.secondFactorAdded, userId: user.id, context: context, details: ["factor": "totp"])
        guard try await store.unusedRecoveryCodes(userID: user.id) == 0 else { return nil }
        return try await regenerateRecoveryCodes(userID: user.id, context: context)
    }

    /// New recovery codes; every earlier one stops working.
    public func regenerateRecoveryCodes(userID: String, context: ClientContext) async throws -> [String] {
        let codes = RecoveryCodes.generate()
        try await store.replaceRecoveryCodes(userID: userID, hashes: codes.map { RecoveryCodes.hash(RecoveryCodes.normalized($0)!) },
                                             at: clock.now())
        await audit.record(.recoveryCodesGenerated, userId: userID, context: context, details: ["factor": "recovery_codes"])
        return codes
    }

    /// Lets the user's registered security keys and passkeys answer the second step (with no authenticator
    /// app needed); returns new recovery codes when the account had none left (shown once).
    public func useSecurityKeys(userID: String, context: ClientContext) async throws -> [String]? {
        // On already (a second submission of the form): nothing changes, nothing to audit or show.
        if try await store.webAuthnSecondStep(userID: userID) { return nil }
        guard try await store.enableWebAuthnSecondStep(userID: userID, at: clock.now()) else { throw SecondFactorRefusal.noSecurityKey }
        await audit.record(.secondFactorAdded, userId: userID, context: context, details: ["factor": "webauthn"])
        guard try await store.unusedRecoveryCodes(userID: userID) == 0 else { return nil }
        return try await regenerateRecoveryCodes(userID: userID, context: context)
    }

    /// Removes one second factor while another stays (``TwoStepPolicy``): the last one is refused.
    public func remove(_ factor: SecondFactorKind, userID: String, context: ClientContext) async throws {
        let change: TwoStepPolicy.Change = factor == .totp ? .removeAuthenticatorApp : .stopSecurityKeys
        if let refusal = TwoStepPolicy.refusal(change, status: try await status(userID: userID), requiredBy: []) { throw refusal }
        // The store decides again under the user row's lock: a concurrent removal may have taken the other one.
        switch try await store.removeUnlessLast(factor, userID: userID) {
        case .removed: await audit.record(.secondFactorRemoved, userId: userID, context: context, details: ["factor": factor.rawValue])
        case .notEnrolled: throw SecondFactorRefusal.notEnrolled
        case .lastFactor: throw SecondFactorRefusal.lastFactor
        }
    }

    /// The user turns two-step sign-in off: the authenticator app, the security-key second step and the
    /// recovery codes go, and the password alone signs in again — unless an application the account uses
    /// requires multi-factor sign-ins.
    public func turnOff(userID: String, context: ClientContext) async throws -> Bool {
        let status = try await status(userID: userID)
        let requiredBy = status.isEnabled ? try await applicationsRequiringTwoStep(userID) : []
        if let refusal = TwoStepPolicy.refusal(.turnOff, status: status, requiredBy: requiredBy) { throw refusal }
        return try await removeAll(userID: userID, context: context)
    }

    /// Removes every second factor and the recovery codes: the account signs in with its password alone again.
    /// An administrator's reset (`actor`) is never refused: it is how a locked-out user gets back in.
    public func removeAll(userID: String, context: ClientContext, by actor: String? = nil) async throws -> Bool {
        let hadTOTP = try await store.deleteTOTP(userID: userID)
        let hadKeys = try await store.disableWebAuthnSecondStep(userID: userID)
        let hadCodes = try await store.deleteRecoveryCodes(userID: userID) > 0
        guard hadTOTP || hadKeys || hadCodes else { return false }
        var details = ["factor": hadTOTP || !hadKeys ? "totp" : "webauthn"]
        if let actor { details["by"] = actor }
        await audit.record(actor == nil ? .secondFactorRemoved : .secondFactorsReset, userId: userID, context: context, details: details)
        return true
    }

    // MARK: The sign-in's second step

    /// Checks a code typed at the second step: a TOTP code of the account's app (once per time step)
    /// or one of its unused recovery codes. Failures count per account and client address, and per
    /// account over every address (the ceiling on guessing from many).
    public func verify(userID: String, code: String, context: ClientContext) async throws -> Method {
        let keys = limiterKeys(userID, context)
        if let wait = try await waiting(keys) {
            await audit.record(.secondFactorRateLimited, userId: userID, context: context)
            throw SecondFactorRefusal.rateLimited(retryAfter: wait)
        }
        do {
            let method = try await check(userID: userID, code: code, context: context)
            try await limiter.reset(limits.secondFactorPerAccount, key: keys.client)
            return method
        } catch let refusal as SecondFactorRefusal {
            try await recordFailure(keys)
            await audit.record(.secondFactorFailed, userId: userID, context: context, details: ["reason": refusal.reason])
            throw refusal
        }
    }

    func check(userID: String, code: String, context: ClientContext) async throws -> Method {
        if let typed = TOTPWindow.normalized(code) {
            guard let factor = try await store.totp(userID: userID), factor.confirmedAt != nil,
                  let step = TOTPWindow.matchingStep(code: typed, secret: try open(factor), unixTime: unixNow()) else {
                throw SecondFactorRefusal.wrongCode
            }
            guard try await store.acceptTOTPStep(userID: userID, step: step) else { throw SecondFactorRefusal.reusedCode }
            return .totp
        }
        guard let typed = RecoveryCodes.normalized(code),
              try await store.useRecoveryCode(userID: userID, hash: RecoveryCodes.hash(typed), at: clock.now()) else {
            throw SecondFactorRefusal.wrongCode
        }
        await audit.record(.recoveryCodeUsed, userId: userID, context: context, details: ["factor": "recovery_codes"])
        return .recoveryCode
    }

    // MARK: Helpers

    func enrolment(secret: [UInt8], account: String) -> Enrolment {
        let encoded = Base32.encode(secret)
        let label = Self.uriComponent(issuer) + ":" + Self.uriComponent(account)
        let uri = "otpauth://totp/\(label)?secret=\(encoded)&issuer=\(Self.uriComponent(issuer))&algorithm=SHA1&digits=6&period=30"
        return Enrolment(secret: encoded, uri: uri)
    }

    func open(_ factor: TOTPFactor) throws -> [UInt8] { try sealing.open(factor.sealedSecret, keyID: Self.sealingLabel(factor.userID)) }

    func limiterKeys(_ userID: String, _ context: ClientContext) -> (client: String, account: String) {
        (userID + "|" + limits.ipKey(context.ip), userID)
    }

    func waiting(_ keys: (client: String, account: String)) async throws -> TimeInterval? {
        let client = try await limiter.wait(limits.secondFactorPerAccount, key: keys.client)
        let account = try await limiter.wait(limits.secondFactorPerAccountAnyClient, key: keys.account)
        return [client, account].compactMap { $0 }.max()
    }

    func recordFailure(_ keys: (client: String, account: String)) async throws {
        try await limiter.recordFailure(limits.secondFactorPerAccount, key: keys.client)
        try await limiter.recordFailure(limits.secondFactorPerAccountAnyClient, key: keys.account)
    }

    func unixNow() -> Int64 { Int64(clock.now().timeIntervalSince1970.rounded(.down)) }

    /// The associated data a secret is sealed with: a sealed secret copied onto another user's row does not open.
    static func sealingLabel(_ userID: String) -> String { "totp:" + userID }

    static func uriComponent(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
