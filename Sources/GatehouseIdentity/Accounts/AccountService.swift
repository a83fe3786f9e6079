import Foundation
import GatehouseCrypto
import GatehouseStore

/// Password accounts: sign-up, sign-in, password changes and account removal, with the rate limits and
/// audit entries each needs. Shared by the web pages and the OAuth password grant.
public struct AccountService: Sendable {
    let users: any UserStore
    /// Password-reset tokens, voided when the password changes.
    let oneTimeTokens: any OneTimeTokenStore
    let hasher: PasswordHasher
    let passwordPolicy: PasswordPolicy
    let limits: RateLimitPolicy
    let limiter: RateLimiter
    let audit: AuditTrail
    let sessions: SessionService
    let clock: IdentityClock
    let knownDevices: KnownDevices

    /// - Parameter deviceKey: the key of the device cookies (``KnownDevices``); a random one (cookies that do
    ///   not outlive the process) when not given.
    public init(users: any UserStore, oneTimeTokens: any OneTimeTokenStore, rateLimits: any RateLimitStore,
                hasher: PasswordHasher, passwordPolicy: PasswordPolicy = PasswordPolicy(),
                limits: RateLimitPolicy = RateLimitPolicy(), audit: AuditTrail, sessions: SessionService,
                clock: IdentityClock = .system, deviceKey: [UInt8] = SecureRandom.bytes(32)) {
        self.knownDevices = KnownDevices(key: deviceKey)
        self.users = users; self.oneTimeTokens = oneTimeTokens
        self.hasher = hasher; self.passwordPolicy = passwordPolicy; self.limits = limits
        self.limiter = RateLimiter(store: rateLimits, clock: clock)
        self.audit = audit; self.sessions = sessions; self.clock = clock
    }

    /// What a sign-up did; the page answers the same for both.
    public enum SignUpOutcome: Sendable, Equatable {
        /// A new, unverified account: send it the verification link.
        case created(User)
        /// The address has an account already: nothing was written; tell its owner by mail instead.
        case alreadyRegistered(User)
    }

    /// Creates a password account, or reports that the address has one. Both cost the same Argon2id hash.
    public func signUp(email rawEmail: String, password: String, displayName: String?,
                       context: ClientContext) async throws -> SignUpOutcome {
        if let wait = try await limiter.hit(limits.signUpPerIP, key: limits.ipKey(context.ip)) {
            throw AccountError.rateLimited(retryAfter: wait)
        }
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        if let problem = passwordPolicy.problem(with: password, email: email) { throw AccountError.weakPassword(problem) }
        let existing = try await users.find(email: email.value)
        let hash = try await hasher.hash(password)
        if let existing { return .alreadyRegistered(existing) }
        let now = clock.now()
        let name = displayName?.trimmingASCIIWhitespace()
        let user = User(id: RecordID.random(), email: email.value, displayName: (name?.isEmpty ?? true) ? nil : name,
                        passwordHash: hash, emailVerified: false, disabled: false, createdAt: now, updatedAt: now)
        do { try await users.create(user) } catch let error as StoreError where error.kind == .conflict {
            // Lost a race with a concurrent sign-up of the same address: the same answer as above.
            if let winner = try await users.find(email: email.value) { return .alreadyRegistered(winner) }
            throw error
        }
        await audit.record(.signUp, userId: user.id, context: context)
        return .created(user)
    }

    /// Creates an account for an operator (CLI): no rate limit, the password optional (the user can
    /// then set one through a reset link or sign in with a provider).
    public func createByOperator(email rawEmail: String, password: String?, displayName: String?, verified: Bool,
                                 by actor: String = "operator") async throws -> User {
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        var hash: String?
        if let password {
            if let problem = passwordPolicy.problem(with: password, email: email) { throw AccountError.weakPassword(problem) }
            hash = try await hasher.hash(password)
        }
        let now = clock.now()
        let user = User(id: RecordID.random(), email: email.value, displayName: displayName, passwordHash: hash,
                        emailVerified: verified, disabled: false, createdAt: now, updatedAt: now)
        do { try await users.create(user) } catch let error as StoreError where error.kind == .conflict {
            throw AccountError.emailTaken
        }
        await audit.record(.signUp, userId: user.id, context: .unknown, details: ["by": actor])
        return user
    }

    /// Checks an email and password. Unknown emails cost the same Argon2id verification as known ones
    /// and get the same answer, so neither the reply nor its timing tells whether an account exists.
    ///
    /// Only failures are counted: per IP (network), per account *and client*, and per account over every
    /// client that never signed in to it. The client is `deviceCookie` when it is a valid ``KnownDevices``
    /// cookie for this account (the browser signed in to it before), otherwise the address. Once failures
    /// reach a limit the attempt is refused before any hash is computed, even with the right password — but
    /// only for that client: a stranger's failures fill the stranger's counters and the shared one, from
    /// which a known device is exempt (as it is from the per-IP limit: its own counter still holds).
    /// The account's counters are keyed by the password in force, so a new password clears them.
    public func authenticate(email rawEmail: String, password: String, context: ClientContext,
                             deviceCookie: String? = nil) async throws -> User {
        let accountKey = EmailAddress(rawEmail)?.value ?? rawEmail.trimmingASCIIWhitespace().lowercased()
        let ipKey = limits.ipKey(context.ip)
        let found = EmailAddress(rawEmail) == nil ? nil : try await users.find(email: accountKey)
        let keys = SignInCounterKeys(account: accountKey, passwordHash: found?.passwordHash, ipKey: ipKey,
                                     device: knownDevices.device(deviceCookie, email: accountKey))
        let ipWait = keys.isKnownDevice ? nil : try await limiter.wait(limits.signInPerIP, key: ipKey)
        let clientWait = try await limiter.wait(limits.signInPerAccount, key: keys.accountAndClient)
        let anyWait = keys.isKnownDevice ? nil : try await limiter.wait(limits.signInPerAccountAnyClient, key: keys.accountAnyClient)
        if let wait = [ipWait, clientWait, anyWait].compactMap({ $0 }).max() {
            let limit = ipWait == wait ? "ip" : clientWait == wait ? "account" : "account_any_client"
            await audit.record(.signInRateLimited, userId: nil, context: context,
                               details: ["email": accountKey, "reason": "rate_limited", "limit": limit,
                                         "retry_after": String(Int(wait.rounded(.up)))])
            throw AccountError.rateLimited(retryAfter: wait)
        }
        guard await hasher.verify(password, against: found?.passwordHash), var user = found else {
            try await limiter.recordFailure(limits.signInPerIP, key: ipKey)
            try await limiter.recordFailure(limits.signInPerAccount, key: keys.accountAndClient)
            if !keys.isKnownDevice { try await limiter.recordFailure(limits.signInPerAccountAnyClient, key: keys.accountAnyClient) }
            let reason = found == nil ? "unknown_account" : found?.passwordHash == nil ? "no_password" : "wrong_password"
            await audit.record(.signInFailed, userId: found?.id, context: context, details: ["email": accountKey, "reason": reason])
            throw AccountError.invalidCredentials
        }
        if user.disabled {
            await audit.record(.signInFailed, userId: user.id, context: context, details: ["reason": "account_disabled"])
            throw AccountError.accountDisabled
        }
        try await limiter.reset(limits.signInPerAccount, key: keys.accountAndClient)
        if let stored = user.passwordHash, hasher.needsRehash(stored) {
            // Parameters changed since this hash was made: upgrade it now that we know the password.
            let upgraded = try await hasher.hash(password)
            user = try await users.update(id: user.id, [.passwordHash(upgraded)], at: clock.now())
        }
        return user
    }

    /// The device cookie to give a browser that just signed in to `user` with a password (``KnownDevices``).
    public func deviceCookie(for user: User, existing: String?) -> String {
        knownDevices.cookieValue(email: user.email, existing: existing)
    }

    /// Changes a signed-in user's password after checking the current one; every other session ends.
    public func changePassword(userId: String, current: String, new: String, keepingSessionToken: String?,
                               context: ClientContext) async throws {
        guard let user = try await users.find(id: userId) else { throw AccountError.notFound }
        try await limitPasswordCheck(userId: user.id, context: context)
        guard await hasher.verify(current, against: user.passwordHash) else { throw AccountError.invalidCredentials }
        try await setPassword(user: user, to: new, keepingSessionToken: keepingSessionToken)
        await audit.record(.passwordChanged, userId: user.id, context: context)
    }

    /// Current-password checks of a signed-in session are guesses too: a stolen session must not turn
    /// `/account/password` or `/account/delete` into an unlimited password oracle.
    /// Counted per account, before the hash is checked; a correct password does not reset the count.
    func limitPasswordCheck(userId: String, context: ClientContext) async throws {
        if let wait = try await limiter.hit(limits.currentPasswordPerAccount, key: userId) {
            await audit.record(.passwordCheckRateLimited, userId: userId, context: context)
            throw AccountError.rateLimited(retryAfter: wait)
        }
    }

    /// Sets a new password, ends every session but `keepingSessionToken`'s and voids pending reset links.
    func setPassword(user: User, to new: String, keepingSessionToken: String?) async throws {
        if let problem = passwordPolicy.problem(with: new, email: EmailAddress(user.email)) {
            throw AccountError.weakPassword(problem)
        }
        let hash = try await hasher.hash(new)
        _ = try await users.update(id: user.id, [.passwordHash(hash)], at: clock.now())
        try await sessions.endAll(userId: user.id, keeping: keepingSessionToken)
        _ = try await oneTimeTokens.invalidateAll(userId: user.id, purpose: .passwordReset)
    }

    /// Deletes an account its owner asked to delete: `proof` must pass ``RecentAuthentication`` and
    /// `confirmation` must be the account's email address, typed (any case, surrounding spaces ignored).
    public func deleteAccount(userId: String, proof: RecentAuthentication.Proof, confirmation: String,
                              context: ClientContext) async throws {
        guard let user = try await users.find(id: userId) else { throw AccountError.notFound }
        guard confirmation.trimmingASCIIWhitespace().lowercased() == user.email else { throw AccountError.confirmationMismatch }
        try await RecentAuthentication(accounts: self, clock: clock).verify(proof, user: user, context: context)
        try await remove(user, context: context)
    }

    /// Deletes an account for an operator (CLI, admin API): no proof asked.
    public func deleteAccountByOperator(userId: String, context: ClientContext) async throws {
        guard let user = try await users.find(id: userId) else { throw AccountError.notFound }
        try await remove(user, context: context)
    }

    private func remove(_ user: User, context: ClientContext) async throws {
        // Told before the rows go (the store removes the sessions with the account): should the delete
        // fail, the product has merely signed the user out.
        try await sessions.announceDeletion(userId: user.id)
        _ = try await users.delete(id: user.id)
        await audit.record(.accountDeleted, userId: user.id, context: context, details: ["email": user.email])
    }

    /// Disables (or re-enables) an account; disabling ends all its sessions.
    public func setDisabled(userId: String, _ disabled: Bool, context: ClientContext) async throws {
        _ = try await users.update(id: userId, [.disabled(disabled)], at: clock.now())
        if disabled {
            try await sessions.endAll(userId: userId, reason: "account_disabled")
            await audit.record(.accountDisabled, userId: userId, context: context)
        } else {
            await audit.record(.accountEnabled, userId: userId, context: context)
        }
    }
}
