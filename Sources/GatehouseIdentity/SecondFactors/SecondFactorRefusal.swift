import Foundation

/// Why a second-factor code or an enrolment step was refused. The messages are for the person at the
/// keyboard; the ``reason`` is only the audit log's spelling.
public enum SecondFactorRefusal: Error, Sendable, Equatable {
    /// Not a code of this authenticator (or an unknown or spent recovery code).
    case wrongCode
    /// A code of a time step already used (the same code again, or an older one).
    case reusedCode
    case rateLimited(retryAfter: TimeInterval)
    /// The pending sign-in step is unknown, spent, expired or another browser's.
    case challengeExpired
    /// Set-up asked for while an authenticator is enrolled already.
    case alreadyEnrolled
    /// Confirm or remove asked for with no enrolment to act on.
    case notEnrolled
    /// The account's only second factor while two-step sign-in is on: turn it off instead, or add another first.
    case lastFactor
    /// Two-step sign-in cannot be turned off: this application the account uses requires it.
    case requiredByApplication(String)
    /// Security keys as the second step asked for with no security key or passkey registered.
    case noSecurityKey

    public var message: String {
        switch self {
        case .wrongCode: "That code is not right. Enter the 6-digit code your authenticator app shows now, or a recovery code."
        case .reusedCode: "That code was used already. Wait for the next code in your authenticator app."
        case .rateLimited(let wait): "Too many attempts. Try again in \(AccountError.describe(wait))."
        case .challengeExpired: "This sign-in took too long or was finished elsewhere. Sign in again."
        case .alreadyEnrolled: "An authenticator app is set up already. Remove it first to set up another."
        case .notEnrolled: "No authenticator app is set up on this account."
        case .lastFactor: "This is your only second step, so it cannot be removed. Add another one first, or turn off two-step sign-in."
        case .requiredByApplication(let name): "\(name) requires two-step sign-in, so it stays on. Revoke the application's access first."
        case .noSecurityKey: "Add a security key or passkey first."
        }
    }

    public var reason: String {
        switch self {
        case .wrongCode: "wrong_code"
        case .reusedCode: "reused_code"
        case .rateLimited: "rate_limited"
        case .challengeExpired: "challenge_expired"
        case .alreadyEnrolled: "already_enrolled"
        case .notEnrolled: "not_enrolled"
        case .lastFactor: "last_factor"
        case .requiredByApplication: "required_by_application"
        case .noSecurityKey: "no_security_key"
        }
    }
}
