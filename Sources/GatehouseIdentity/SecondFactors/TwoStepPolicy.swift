/// The rules for taking a second factor away while two-step sign-in is on: the user chose a second step, so
/// it never silently stops being asked for. Turning two-step sign-in off is its own, explicit change — and
/// not while an application the account uses requires a multi-factor sign-in (`require_mfa`).
public enum TwoStepPolicy {
    /// A change to an account's second factors.
    public enum Change: Sendable, Equatable {
        /// Remove the authenticator app (the security keys stay the second step).
        case removeAuthenticatorApp
        /// Stop asking for a security key or passkey at the second step (the authenticator app stays).
        case stopSecurityKeys
        /// Remove a registered security key or passkey; `last`: it is the account's only one.
        case removeCredential(last: Bool)
        /// Turn two-step sign-in off: the password alone signs in again.
        case turnOff
    }

    /// Why `change` is refused for an account in `status`, or nil when it may go ahead. `requiredBy`: the
    /// names of the applications the account uses (consented to, or holding its tokens) that require
    /// multi-factor sign-ins.
    public static func refusal(_ change: Change, status: SecondFactors.Status, requiredBy: [String]) -> SecondFactorRefusal? {
        switch change {
        case .removeAuthenticatorApp:
            guard status.totp else { return .notEnrolled }
            return status.webAuthn ? nil : .lastFactor
        case .stopSecurityKeys:
            guard status.webAuthn else { return .notEnrolled }
            return status.totp ? nil : .lastFactor
        case .removeCredential(let last):
            return last && status.webAuthn && !status.totp ? .lastFactor : nil
        case .turnOff:
            guard status.isEnabled else { return nil }
            return requiredBy.first.map { .requiredByApplication($0) }
        }
    }
}
