import Foundation
import GatehouseStore

/// Whether an account may be handed anything that outlives its own web session: OAuth codes and tokens
/// (code flow, password grant, token exchange), or new linked sign-in methods.
///
/// Anyone can sign up with someone else's address. Until the address is proven (the verification link,
/// or a password reset by mail), the account belongs to whoever typed the address, not necessarily to its
/// owner — so it must not collect credentials that would survive the owner claiming it.
/// Every path that issues tokens or links an identity asks here first; the web session alone is allowed,
/// so the person can still sign in, read "confirm your address" and request a new link.
public enum AccountStanding: Sendable, Equatable {
    case good
    case disabled
    /// The account's email address has not been proven by its owner yet.
    case emailUnproven

    public init(_ user: User) {
        self = user.disabled ? .disabled : user.emailVerified ? .good : .emailUnproven
    }

    /// Refuses token issuance (authorization codes, password grant, token exchange, refresh) for an
    /// account that is disabled or whose email is unproven.
    public static func requireTokenIssuance(_ user: User) throws(AccountError) {
        switch AccountStanding(user) {
        case .good: return
        case .disabled: throw AccountError.accountDisabled
        case .emailUnproven: throw AccountError.emailUnverified
        }
    }

    /// Refuses linking a provider identity into an account that is disabled or whose email is unproven.
    public static func requireLinking(_ user: User) throws(AccountError) {
        try requireTokenIssuance(user)
    }

    /// Whether a provider sign-in whose verified email equals this account's may be merged into it
    /// automatically (`link_verified_emails`): only into a proven, enabled account.
    public static func acceptsAutomaticLink(_ user: User) -> Bool { AccountStanding(user) == .good }
}
