import Foundation
import GatehouseIdentity
import GatehouseProviders

/// Which upstream sign-in providers are enabled and how (the `providers` section of the config file).
public struct ProvidersConfiguration: Sendable {
    /// What Apple's `account-delete` notification does to the Gatehouse account.
    public typealias AppleAccountDeletion = AppleAccountEvents.AccountDeletion

    public var apple: AppleSettings?
    public var appleAccountDeletion: AppleAccountDeletion = .delete
    public var google: OIDCSettings?
    public var github: GitHubSettings?
    /// Generic OpenID Connect providers, in button order.
    public var oidc: [OIDCSettings] = []
    /// Sign a first-time provider user straight into the existing account with the same *verified*,
    /// non-relay email. Off by default: the user is asked to sign in to that account and link instead.
    public var linkVerifiedEmails = false
    /// Generic OIDC providers (by id) whose `email_verified` is trusted to prove an address: only these may
    /// link automatically by email (`trusted_email: true`). Apple, Google and GitHub are trusted by default.
    public var oidcTrustedForEmail: Set<String> = []
    /// Linking a provider needs a sign-in at most this old (seconds); older sessions sign in again first.
    public var linkMaxSignInAge: TimeInterval = 600
    /// Time limit for each call to a provider (whole seconds, at least 1).
    public var timeoutSeconds = 10

    public init() {}

    /// Whether a provider's verified email proves the address (automatic linking by email, new accounts
    /// created verified): Apple and Google (verified emails), GitHub (its primary *and* verified address
    /// only — the provider reads nothing else), and generic OIDC providers marked `trusted_email`.
    public func trustsEmail(of provider: String) -> Bool {
        switch provider {
        case "apple", "google", "github": true
        default: oidcTrustedForEmail.contains(provider)
        }
    }

    /// The configured providers' ids in button order (their sign-in metrics exist from start).
    public var enabledIDs: [String] {
        (apple == nil ? [] : ["apple"]) + (google.map { [$0.id] } ?? []) + (github == nil ? [] : ["github"]) + oidc.map(\.id)
    }

    /// Whether no provider is configured.
    public var isEmpty: Bool { apple == nil && google == nil && github == nil && oidc.isEmpty }
}
