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

    public init(database: any GatehouseDatabase, mailer: any Mailer, accounts: AccountService,
                limits: RateLimitPolicy = RateLimitPolicy(), audit: AuditTrail, clock: IdentityClock = .system,
                absoluteURL: @escaping @Sendable (String) -> String) {
        self.database = database; self.mailer = mailer; self.accounts = accounts; self.limits = limits
        self.limiter = RateLimiter(store: database.rateLimits, clock: clock); self.audit = audit
        self.clock = clock; self.absoluteURL = absoluteURL
    }

    /// Sends a reset link if the address has an account. Answers the same either way, and the mail goes
    /// out in the background so the reply takes the same time too.
    public func requestPasswordReset(email rawEmail: String, context: ClientContext) async throws {
        if let wait = try await limiter.hit(limits.passwordForgotPerIP, key: limits.ipKey(context.ip)) {
            throw AccountError.rateLimited(retryAfter: wait)
        }
        guard let email = EmailAddress(rawEmail) else { throw AccountError.invalidEmail }
        // Per-account limit: silently drop extra requests, so it cannot reveal the account either.
        if try await limiter.hit(limits.passwordForgotPerAccount, key: email.value) != nil { return }
        guard let user = try await database.users.find(email: email.value), !user.disabled else { return }
        let token = try await issue(.passwordReset, userId: user.id, lifetime: resetLifetime)
        await audit.record(.passwordResetRequested, userId: user.id, context: context)
        let link = absoluteURL("/password/reset/\(token)")
        let message = MailMessage(to: user.email, subject: "Reset your password", textBody: """
            Someone asked to reset the password of your account. If it was you, open this link within \
            \(Int(resetLifetime / 60)) minutes:

            \(link)

            If it was not you, ignore this email; your password stays as it is.
            """)
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
        return user
    }

    /// Sends the verification link for a user's address.
    public func sendVerification(to user: User) async throws {
        let token = try await issue(.emailVerify, userId: user.id, lifetime: verifyLifetime)
        let link = absoluteURL("/email/verify/\(token)")
        try await mailer.send(MailMessage(to: user.email, subject: "Confirm your email address", textBody: """
            Confirm that this address is yours by opening:

            \(link)
            """))
    }

    /// Marks the address verified from a verification link.
    public func verifyEmail(token: String, context: ClientContext) async throws -> User {
        guard let consumed = try await database.oneTimeTokens.consume(hash: Self.hash(token), purpose: .emailVerify, now: clock.now()) else {
            throw AccountError.invalidToken
        }
        let user = try await database.users.update(id: consumed.userId, [.emailVerified(true)], at: clock.now())
        await audit.record(.emailVerified, userId: user.id, context: context)
        return user
    }

    static func hash(_ token: String) -> TokenHash { TokenHash(SHA256.hash(token)) }

    private func issue(_ purpose: TokenPurpose, userId: String, lifetime: TimeInterval) async throws -> String {
        let token = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await database.oneTimeTokens.create(OneTimeToken(hash: Self.hash(token), purpose: purpose, userId: userId,
                                                             createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        return token
    }
}
