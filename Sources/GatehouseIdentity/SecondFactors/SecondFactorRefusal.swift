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

    public var message: String {
        switch self {
        case .wrongCode: "That code is not right. Enter the 6-digit code your authenticator app shows now, or a recovery code."
        case .reusedCode: "That code was used already. Wait for the next code in your authenticator app."
        case .rateLimited(let wait): "Too many attempts. Try again in \(AccountError.describe(wait))."
        case .challengeExpired: "This sign-in took too long or was finished elsewhere. Sign in again."
        case .alreadyEnrolled: "An authenticator app is set up already. Remove it first to set up another."
        case .notEnrolled: "No authenticator app is set up on this account."
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
        }
    }
}
