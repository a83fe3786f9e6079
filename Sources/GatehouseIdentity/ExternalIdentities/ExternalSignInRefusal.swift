/// Why a provider sign-in or link was refused, with nothing written. Routes turn it into a page, a JSON
/// error or an app callback; ``reason`` is its audit-log (and native `error`) spelling.
public enum ExternalSignInRefusal: Sendable, Equatable {
    /// A link finished in a session other than the one that started it.
    case sessionChanged
    /// The upstream account is already linked to another Gatehouse account.
    case linkedElsewhere
    /// The signed-in account's own address is unproven, so it may link nothing (issue #14 item 2).
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
