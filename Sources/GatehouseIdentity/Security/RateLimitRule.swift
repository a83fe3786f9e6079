import Foundation
import GatehouseNetwork

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
///
/// Sign-in limits count **failures only**: a proxy, a carrier NAT or an office behind one address can
/// sign in any number of users, while guesses from that address are refused (without the cost of a
/// password hash) once its failures reach the limit. Config keys are `rate_limits.<property in snake case>`.
public struct RateLimitPolicy: Sendable {
    /// Failed sign-ins per client IP (IPv6 keyed by its `/ipv6PrefixLength` network).
    public var signInPerIP: [RateLimitRule]
    /// Failed sign-ins per account *and client* — the client is the browser's device cookie (``KnownDevices``)
    /// or else its address (``ipKey(_:)``) — tiered so repeated failures back off: 5 a minute, then 10 per 15
    /// minutes, then 20 an hour. While backed off even the right password waits, but only from that client; a
    /// success resets them, and so does a new password (the counters are keyed by the password in force).
    public var signInPerAccount: [RateLimitRule]
    /// Failed sign-ins per account from every client that never signed in to it, taken together: the ceiling
    /// on guessing one account from many addresses. Reaching it holds back new clients only; a browser that
    /// signed in to the account before (its device cookie) is exempt, so a stranger's failures never lock the
    /// owner out of their own browser.
    public var signInPerAccountAnyClient = [RateLimitRule(bucket: "sign_in.account_any.1", limit: 50, window: 3600)]
    public var signUpPerIP: [RateLimitRule]
    public var passwordForgotPerIP: [RateLimitRule]
    public var passwordForgotPerAccount: [RateLimitRule]
    public var passwordResetPerIP: [RateLimitRule]
    /// IPv6 clients are keyed by this prefix: one subscriber usually holds a whole /64.
    public var ipv6PrefixLength: Int
    /// Current-password checks of a signed-in account (`/account/password`, `/account/delete`), per account.
    public var currentPasswordPerAccount = [RateLimitRule(bucket: "password_check.account", limit: 5, window: 900)]
    /// Failed second-factor codes (authenticator app or recovery code) per account and client, tiered like
    /// ``signInPerAccount``: a 6-digit code space needs the limit more than a password does.
    public var secondFactorPerAccount = [
        RateLimitRule(bucket: "second_factor.account.1", limit: 5, window: 60),
        RateLimitRule(bucket: "second_factor.account.2", limit: 10, window: 900),
        RateLimitRule(bucket: "second_factor.account.3", limit: 20, window: 3600),
    ]
    /// Failed second-factor codes per account from every address together: 50 an hour.
    public var secondFactorPerAccountAnyClient = [RateLimitRule(bucket: "second_factor.account_any", limit: 50, window: 3600)]
    /// "You already have an account" notes per recipient account: a sign-up with a taken address mails its
    /// owner, so without a limit anyone could flood that inbox through the sign-up form. Extra notes are
    /// dropped silently (the sign-up page answers the same either way).
    public var alreadyRegisteredPerRecipient = [
        RateLimitRule(bucket: "already_registered.recipient.1", limit: 1, window: 3600),
        RateLimitRule(bucket: "already_registered.recipient.2", limit: 3, window: 86_400),
    ]
    /// Mails the account page sends on its owner's request (an address change, a password set-up link), per
    /// account: a stolen or idle session must not turn them into a way to flood an inbox.
    public var accountMailsPerAccount = [RateLimitRule(bucket: "account_mail.account", limit: 5, window: 3600)]
    /// Native passkey requests (`/native/passkey/options`, `/native/passkey`) per client IP, every request
    /// counted: each options request stores a challenge, and an app makes two requests per sign-in.
    public var nativePasskeyPerIP = [RateLimitRule(bucket: "native_passkey.ip", limit: 30, window: 60)]
    /// Admin API (`/admin/v1/`) requests per admin client: 600 a minute, ample for an admin screen or a
    /// nightly sync, small enough that a leaked admin token cannot page through every account in seconds.
    public var adminAPIPerClient = [RateLimitRule(bucket: "admin_api.client", limit: 600, window: 60)]

    public init(signInPerIP: [RateLimitRule] = [RateLimitRule(bucket: "sign_in.ip", limit: 10, window: 180)],
                signInPerAccount: [RateLimitRule] = [
                    RateLimitRule(bucket: "sign_in.account.1", limit: 5, window: 60),
                    RateLimitRule(bucket: "sign_in.account.2", limit: 10, window: 900),
                    RateLimitRule(bucket: "sign_in.account.3", limit: 20, window: 3600),
                ],
                signUpPerIP: [RateLimitRule] = [RateLimitRule(bucket: "sign_up.ip", limit: 10, window: 600)],
                passwordForgotPerIP: [RateLimitRule] = [RateLimitRule(bucket: "password_forgot.ip", limit: 10, window: 600)],
                passwordForgotPerAccount: [RateLimitRule] = [RateLimitRule(bucket: "password_forgot.account", limit: 3, window: 900)],
                passwordResetPerIP: [RateLimitRule] = [RateLimitRule(bucket: "password_reset.ip", limit: 20, window: 600)],
                ipv6PrefixLength: Int = 64) {
        self.signInPerIP = signInPerIP; self.signInPerAccount = signInPerAccount; self.signUpPerIP = signUpPerIP
        self.passwordForgotPerIP = passwordForgotPerIP; self.passwordForgotPerAccount = passwordForgotPerAccount
        self.passwordResetPerIP = passwordResetPerIP; self.ipv6PrefixLength = ipv6PrefixLength
    }

    /// No limits at all: for benchmarks and load tests only, never production.
    public static let disabled: RateLimitPolicy = {
        var policy = RateLimitPolicy(signInPerIP: [], signInPerAccount: [], signUpPerIP: [], passwordForgotPerIP: [],
                                     passwordForgotPerAccount: [], passwordResetPerIP: [])
        policy.currentPasswordPerAccount = []
        policy.adminAPIPerClient = []
        policy.nativePasskeyPerIP = []
        policy.alreadyRegisteredPerRecipient = []
        policy.accountMailsPerAccount = []
        policy.signInPerAccountAnyClient = []
        policy.secondFactorPerAccount = []
        policy.secondFactorPerAccountAnyClient = []
        return policy
    }()

    /// The key per-IP rules count under: the IPv4 address, or the IPv6 address's network
    /// (`2001:db8:1:2::/64`), so rotating addresses inside one allocation gains an attacker nothing.
    public func ipKey(_ ip: String?) -> String {
        guard let ip, let address = IPAddress(ip) else { return ip ?? "-" }
        if address.isIPv4 { return address.description }
        return "\(address.masked(to: ipv6PrefixLength))/\(ipv6PrefixLength)"
    }
}
