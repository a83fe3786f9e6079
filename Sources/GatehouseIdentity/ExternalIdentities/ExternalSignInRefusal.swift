/// Why a provider sign-in or link was refused, with nothing written. Routes turn it into a page, a JSON
/// error or an app callback; ``reason`` is its audit-log (and native `error`) spelling.
public enum ExternalSignInRefusal: Sendable, Equatable {
    /// A link finished in a session other than the one that started it.
    case sessionChanged
    /// The upstream account is already linked to another account here.
    case linkedElsewhere
    /// The signed-in account's own address is unproven, so it may link nothing.
    case accountUnconfirmed(email: String)
    case disabled
    /// The provider shared no (usable) email address, which a new account needs.
    case missingEmail
    /// The provider's address is not verified there.
    case unverifiedEmail
    /// An account with this address exists and is not linked automatically; `confirmed` is whether
    /// its own address was ever proven (the page then says how to claim it).
    case accountExists(confirmed: Bool)

    /// Stable spelling for the audit log and the native endpoints' `error` member.
    public var reason: String {
        switch self {
        case .sessionChanged: "link_session_mismatch"
        case .linkedElsewhere: "identity_linked_elsewhere"
        case .accountUnconfirmed: "link_unverified_account"
        case .disabled: "disabled"
        case .missingEmail: "missing_email"
        case .unverifiedEmail: "unverified_email"
        case .accountExists: "account_exists"
        }
    }
}

extension ExternalSignInRefusal {
    /// The message for `provider`'s display `label`, naming `email` (the address concerned) where useful.
    public func message(label: String, email: String?) -> String {
        let address = email ?? "this address"
        return switch self {
        case .sessionChanged: "Your session changed while linking \(label). Sign in and try again."
        case .linkedElsewhere: "That \(label) account is already linked to another account here."
        case .accountUnconfirmed(let own):
            "Confirm your email address before adding a sign-in method: open the link we sent to \(own)."
        case .disabled: "This account is disabled."
        case .missingEmail:
            "\(label) did not share an email address, which a new account needs. Allow access to your email and try again."
        case .unverifiedEmail: "Your email address at \(label) is not verified. Verify it there and try again."
        case .accountExists(confirmed: false):
            "An account with \(address) exists, but its address was never confirmed. If the address is yours, choose a new password with “Forgot your password?” — that confirms it and removes anything someone else attached — then add \(label) from your account page."
        case .accountExists(confirmed: true):
            "An account with \(address) already exists. Sign in to it the way you did before, then add \(label) under “Sign-in methods” on your account page."
        }
    }

    /// The HTTP status of the page or JSON answer: 409 for an existing account, 403 for a disabled one, 400 otherwise.
    public var statusCode: Int {
        switch self {
        case .accountExists: 409
        case .disabled: 403
        default: 400
        }
    }
}
