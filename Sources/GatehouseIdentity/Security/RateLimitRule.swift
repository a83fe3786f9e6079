import Foundation

/// A limit of `limit` attempts per `window` for one kind of action, keyed by IP or account.
public struct RateLimitRule: Sendable, Equatable {
    public var bucket: String
    public var limit: Int
    public var window: TimeInterval

    public init(bucket: String, limit: Int, window: TimeInterval) {
        self.bucket = bucket; self.limit = limit; self.window = window
    }
}

/// The limits Gatehouse applies; every one lives in the store, so it holds across processes.
public struct RateLimitPolicy: Sendable {
    /// Sign-in attempts per client IP.
    public var signInPerIP: [RateLimitRule]
    /// Sign-in attempts per account (email), tiered so repeated failures back off exponentially:
    /// 5 a minute, then 10 per 15 minutes, then 20 an hour. A success resets them.
    public var signInPerAccount: [RateLimitRule]
    public var signUpPerIP: [RateLimitRule]
    public var passwordForgotPerIP: [RateLimitRule]
    public var passwordForgotPerAccount: [RateLimitRule]
    public var passwordResetPerIP: [RateLimitRule]
    /// Current-password checks of a signed-in account (`/account/password`, `/account/delete`), per account.
    public var currentPasswordPerAccount = [RateLimitRule(bucket: "password_check.account", limit: 5, window: 900)]

    public init(signInPerIP: [RateLimitRule] = [RateLimitRule(bucket: "sign_in.ip", limit: 10, window: 180)],
                signInPerAccount: [RateLimitRule] = [
                    RateLimitRule(bucket: "sign_in.account.1", limit: 5, window: 60),
                    RateLimitRule(bucket: "sign_in.account.2", limit: 10, window: 900),
                    RateLimitRule(bucket: "sign_in.account.3", limit: 20, window: 3600),
                ],
                signUpPerIP: [RateLimitRule] = [RateLimitRule(bucket: "sign_up.ip", limit: 10, window: 600)],
                passwordForgotPerIP: [RateLimitRule] = [RateLimitRule(bucket: "password_forgot.ip", limit: 10, window: 600)],
                passwordForgotPerAccount: [RateLimitRule] = [RateLimitRule(bucket: "password_forgot.account", limit: 3, window: 900)],
                passwordResetPerIP: [RateLimitRule] = [RateLimitRule(bucket: "password_reset.ip", limit: 20, window: 600)]) {
        self.signInPerIP = signInPerIP; self.signInPerAccount = signInPerAccount; self.signUpPerIP = signUpPerIP
        self.passwordForgotPerIP = passwordForgotPerIP; self.passwordForgotPerAccount = passwordForgotPerAccount
        self.passwordResetPerIP = passwordResetPerIP
    }

    /// No limits at all: for benchmarks and load tests only, never production.
    public static let disabled: RateLimitPolicy = {
        var policy = RateLimitPolicy(signInPerIP: [], signInPerAccount: [], signUpPerIP: [], passwordForgotPerIP: [],
                                     passwordForgotPerAccount: [], passwordResetPerIP: [])
        policy.currentPasswordPerAccount = []
        return policy
    }()
}
