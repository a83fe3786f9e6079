import Foundation
import GatehouseCrypto
import GatehouseStore

/// Single-use links sent by email: password reset (≤ 30 minutes) and email verification.
/// Only the SHA-256 of each token is stored; a password change voids pending reset links.
public struct EmailLinks: Sendable {
    let database: any GatehouseDatabase
    let mailer: any Mailer
    let accounts: AccountService
    let limits: RateLimitPolicy
    let limiter: RateLimiter
    let audit: AuditTrail
    let clock: IdentityClock
    /// Builds the absolute URL for a path on this server.
    let absoluteURL: @Sendable (String) -> String
    public var resetLifetime: TimeInterval = 30 * 60
    public var verifyLifetime: TimeInterval = 3 * 86_400
    /// What the first proof of email ownership removes (nil: nothing, only for tests of this type alone).
    public let ownershipClaim: EmailOwnershipClaim?
    /// The mails' words, in the recipient's language.
    public let wording: any MailWording

    public init(database: any GatehouseDatabase, mailer: any Mailer, accounts: AccountService,
                limits: RateLimitPolicy = RateLimitPolicy(), audit: AuditTrail, clock: IdentityClock = .system,
                absoluteURL: @escaping @Sendable (String) -> String, ownershipClaim: EmailOwnershipClaim? = nil,
                wording: any MailWording = EnglishMailWording()) {
        self.ownershipClaim = ownershipClaim
        self.wording = wording
        self.database = database; self.mailer = mailer; self.accounts = accounts; self.limits = limits
        self.limiter = RateLimiter(store: database.rateLimits, clock: clock); self.audit = audit
        self.clock = clock; self.absoluteURL = absoluteURL
    }

    /// Sends a reset link if the address has an account, and a "no account here" note if not: the same
    /// work either way (one lookup, one token-table write, one audit entry, one mail queued in the
    /// background), so neither the
    /// answer, nor its timing, nor the mail count tells whether an account exists.
    /// `language`: the page's, for a mail to an address whose account chose none (or that has no account).
    public func requestPasswordReset(email rawEmail: String, context: ClientContext, language: String? = nil) async throws {
        if let wait = try await limiter.hit(limits.passwordForgotPerIP, key: limits.ipKey(context.ip)) {
            throw AccountError.rateLimited(retryAfter: wait)
        }
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        // Per-account limit: silently drop extra requests, so it cannot reveal the account either.
        if try await limiter.hit(limits.passwordForgotPerAccount, key: email.value) != nil { return }
        let user = try await database.users.find(email: email.value)
        let message: MailMessage
        if let user, !user.disabled {
            let token = try await issue(.passwordReset, userId: user.id, lifetime: resetLifetime)
            await audit.record(.passwordResetRequested, userId: user.id, context: context)
            let link = absoluteURL("/password/reset/\(token)")
            message = wording.message(.passwordReset, to: user.email, language: user.language ?? language,
                                      values: ["link": link, "minutes": String(Int(resetLifetime / 60))])
        } else {
            // The other branch's token and its write, done for nobody: the same statements either way.
            _ = SecureRandom.token(byteCount: 32)
            _ = try await database.oneTimeTokens.invalidateAll(userId: RecordID.random(), purpose: .passwordReset)
            await audit.record(.passwordResetRequested, userId: user?.id, context: context,
                               details: ["result": user == nil ? "no_account" : "disabled"])
            message = wording.message(user == nil ? .passwordResetNoAccount : .passwordResetDisabled, to: email.value,
                                      language: user?.language ?? language, values: ["sign_up": absoluteURL("/sign-up")])
        }
        queue(message)
    }

    /// Sends in the background: an SMTP round trip in the request would time the answer.
    func queue(_ message: MailMessage) {
        let mailer = self.mailer
        Task.detached { try? await mailer.send(message) }
    }

    /// Sets a new password from a reset link; ends every session of the account.
    public func resetPassword(token: String, newPassword: String, context: ClientContext) async throws -> User {
        if let wait = try await limiter.hit(limits.passwordResetPerIP, key: limits.ipKey(context.ip)) {
            throw AccountError.rateLimited(retryAfter: wait)
        }
        if let problem = accounts.passwordPolicy.problem(with: newPassword, email: nil) {
            throw AccountError.weakPassword(problem)   // checked before the link is spent
        }
        guard let consumed = try await database.oneTimeTokens.consume(hash: Self.hash(token), purpose: .passwordReset, now: clock.now()),
              let user = try await database.users.find(id: consumed.userId), !user.disabled else {
            throw AccountError.invalidToken
        }
        try await accounts.setPassword(user: user, to: newPassword, keepingSessionToken: nil)
        await audit.record(.passwordReset, userId: user.id, context: context)
        // The reset mail reached the address: that proves ownership (and claims an unproven account).
        return try await proveOwnership(of: user, keepingSessionToken: nil, via: "password_reset", clearingPasskeys: true, context: context)
    }

    func proveOwnership(of user: User, keepingSessionToken: String?, via: String, clearingPassword: Bool = false,
                                clearingPasskeys: Bool? = nil, context: ClientContext) async throws -> User {
        guard !user.emailVerified else { return user }
        if let ownershipClaim {
            return try await ownershipClaim.claim(user, keepingSessionToken: keepingSessionToken, via: via,
                                                  clearingPassword: clearingPassword, clearingPasskeys: clearingPasskeys, context: context)
        }
        return try await database.users.update(id: user.id, [.emailVerified(true)] + (clearingPassword ? [.passwordHash(nil)] : []),
                                               at: clock.now())
    }

    /// Sends the verification link for a user's address (in the background).
    /// `language`: the sign-up page's, when the account chose none.
    public func sendVerification(to user: User, language: String? = nil) async throws {
        let token = try await issue(.emailVerify, userId: user.id, lifetime: verifyLifetime)
        queue(wording.message(.verifyEmail, to: user.email, language: user.language ?? language,
                              values: ["link": absoluteURL("/email/verify/\(token)"), "forgot": absoluteURL("/password/forgot")]))
    }

    /// Tells the owner of an existing account that someone tried to sign up with their address, instead
    /// of telling the person at the sign-up form that the address has an account.
    /// At most `alreadyRegisteredPerRecipient` such notes reach one account; the rest are dropped without a
    /// trace on the page, so sign-ups with someone's address cannot flood their inbox.
    public func sendAlreadyRegistered(to user: User, language: String? = nil) async throws {
        if try await limiter.hit(limits.alreadyRegisteredPerRecipient, key: user.id) != nil {
            await audit.record(.mailSuppressed, userId: user.id, context: .unknown, details: ["mail": "already_registered"])
            return
        }
        queue(wording.message(.alreadyRegistered, to: user.email, language: user.language ?? language,
                              values: ["sign_in": absoluteURL("/sign-in"), "forgot": absoluteURL("/password/forgot")]))
    }

    /// What confirming an address did (``verifyEmail(token:presentedSession:password:context:)``).
    public enum Verification: Sendable, Equatable {
        /// Proven; the account's password (if any) stays, since the prover is the one who set it.
        case verified(User)
        /// Proven by someone who did not show they set the password: it was cleared, and `resetToken` (a
        /// password-reset link of this account) lets the prover choose one now.
        case passwordCleared(User, resetToken: String)
        /// The password given is not the account's: nothing changed; `retryToken` is a fresh link for the same
        /// confirmation (the one presented is spent).
        case wrongPassword(retryToken: String)
    }

    /// Confirms the address behind a verification link — the POST of the confirmation page, never its GET,
    /// so a mail scanner that opens links proves nothing.
    ///
    /// Confirming is the first proof of ownership on an unproven account (``EmailOwnershipClaim``), and
    /// whoever signed up with the address may not be its owner. The password the sign-up chose survives only
    /// when the prover shows they set it: the proof arrives in a session of this account (`presentedSession`),
    /// or with that password (`password`, limited like every current-password check). Otherwise the password is
    /// cleared with the claim and a reset link is issued so the prover chooses their own.
    public func verifyEmail(token: String, presentedSession: (token: String, userId: String)? = nil, password: String? = nil,
                            context: ClientContext) async throws -> Verification {
        guard let consumed = try await database.oneTimeTokens.consume(hash: Self.hash(token), purpose: .emailVerify, now: clock.now()),
              let user = try await database.users.find(id: consumed.userId) else {
            throw AccountError.invalidToken
        }
        let keeping = presentedSession.flatMap { $0.userId == user.id ? $0.token : nil }
        // A passkey sign-up has no password to show: its creator proves it by confirming while signed in with the passkey.
        var hasPasskeys = false
        if user.passwordHash == nil, !user.emailVerified, keeping == nil {
            hasPasskeys = !(try await database.webAuthnCredentials.credentials(userID: user.id)).isEmpty
        }
        var creator = keeping != nil || (user.passwordHash == nil && !hasPasskeys) || user.emailVerified
        if !creator, let password, !password.isEmpty {
            try await accounts.limitPasswordCheck(userId: user.id, context: context)
            guard await accounts.hasher.verify(password, against: user.passwordHash) else {
                let retry = try await issue(.emailVerify, userId: user.id, lifetime: consumed.expiresAt.timeIntervalSince(clock.now()))
                return .wrongPassword(retryToken: retry)
            }
            creator = true
        }
        if creator {
            let verified = try await proveOwnership(of: user, keepingSessionToken: keeping, via: "verify_link", context: context)
            await audit.record(.emailVerified, userId: user.id, context: context)
            return .verified(verified)
        }
        let verified = try await proveOwnership(of: user, keepingSessionToken: nil, via: "verify_link", clearingPassword: true,
                                                context: context)
        await audit.record(.emailVerified, userId: user.id, context: context, details: ["password": "cleared"])
        let reset = try await issue(.passwordReset, userId: user.id, lifetime: resetLifetime)
        return .passwordCleared(verified, resetToken: reset)
    }

    static func hash(_ token: String) -> TokenHash { TokenHash(SHA256.hash(token)) }

    func issue(_ purpose: TokenPurpose, userId: String, lifetime: TimeInterval) async throws -> String {
        let token = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await database.oneTimeTokens.create(OneTimeToken(hash: Self.hash(token), purpose: purpose, userId: userId,
                                                             createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        return token
    }
}
