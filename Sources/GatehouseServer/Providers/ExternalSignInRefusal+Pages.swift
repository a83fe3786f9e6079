import GatehouseHTTP
import GatehouseIdentity

/// How a refused provider sign-in reads to a person, on a page or in a native app's error.
extension ExternalSignInRefusal {
    /// The message for `provider`'s display `label`, naming `email` (the address concerned) where useful.
    func message(label: String, email: String?) -> String {
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

    /// The status of the page or JSON answer: 409 for an existing account, 403 for a disabled one.
    var status: HTTPStatus {
        switch self {
        case .accountExists: .conflict
        case .disabled: .forbidden
        default: .badRequest
        }
    }
}
