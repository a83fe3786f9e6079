import Foundation

/// Why an account operation was refused. Messages are written for the person at the keyboard and
/// never reveal whether an email address has an account.
public enum AccountError: Error, Sendable, Equatable {
    case invalidEmail
    case weakPassword(String)
    case emailTaken
    /// Wrong email or password: deliberately one case for both.
    case invalidCredentials
    case accountDisabled
    case rateLimited(retryAfter: TimeInterval)
    case invalidToken
    case notFound
    /// The account's email address is not confirmed yet, so it cannot get tokens or link methods.
    case emailUnverified
    /// The action needs a sign-in more recent than the session's.
    case reauthenticationRequired
    /// Removing this sign-in method would leave the account without a way in.
    case lastSignInMethod
    /// A destructive action's typed confirmation (the account's email address) did not match.
    case confirmationMismatch
    /// A display name that is too long or holds control characters.
    case invalidName

    public var message: String {
        switch self {
        case .invalidEmail: "Enter a valid email address."
        case .weakPassword(let why): why
        case .emailTaken: "An account with this email already exists. Sign in instead, or reset your password."
        case .invalidCredentials: "The email or password is not right."
        case .accountDisabled: "This account is disabled. Contact the administrator."
        case .rateLimited(let retryAfter): "Too many attempts. Try again in \(Self.describe(retryAfter))."
        case .invalidToken: "This link is not valid any more. Links work once and expire; request a new one."
        case .notFound: "No such account."
        case .emailUnverified: "Confirm your email address first: open the link we sent you, or reset your password by email."
        case .reauthenticationRequired: "For your security, sign in again to continue."
        case .lastSignInMethod: "This is the account's only way to sign in, so it cannot be removed. Add another method first."
        case .confirmationMismatch: "Type the account's email address exactly to confirm."
        case .invalidName: "Enter a name of at most 100 characters, on one line."
        }
    }

    static func describe(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return whole == 1 ? "1 second" : "\(whole) seconds" }
        let minutes = (whole + 59) / 60
        return minutes == 1 ? "1 minute" : "\(minutes) minutes"
    }
}
