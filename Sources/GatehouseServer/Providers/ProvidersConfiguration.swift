import Foundation
import GatehouseProviders

/// Which upstream sign-in providers are enabled and how (the `providers` section of the config file).
public struct ProvidersConfiguration: Sendable {
    /// What Apple's `account-delete` notification does to the Gatehouse account.
    public enum AppleAccountDeletion: String, Sendable { case delete, disable }

    public var apple: AppleSettings?
    public var appleAccountDeletion: AppleAccountDeletion = .delete
    public var google: OIDCSettings?
    public var github: GitHubSettings?
    /// Generic OpenID Connect providers, in button order.
    public var oidc: [OIDCSettings] = []
    /// Sign a first-time provider user straight into the existing account with the same *verified*,
    /// non-relay email. Off by default: the user is asked to sign in to that account and link instead.
    public var linkVerifiedEmails = false
    /// Time limit for each call to a provider (whole seconds, at least 1).
    public var timeoutSeconds = 10

    public init() {}

    /// Whether no provider is configured.
    public var isEmpty: Bool { apple == nil && google == nil && github == nil && oidc.isEmpty }
}
