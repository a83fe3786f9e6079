import Foundation
import GatehouseProviders

/// The enabled providers, built once from configuration (and, in demo mode, wired to the mounted simulator).
public struct ProviderRegistry: Sendable {
    /// In button order: Apple, Google, GitHub, then generic OIDC providers as configured.
    public let providers: [any SignInProvider]
    /// Apple, when enabled (notifications and revocation need it by type).
    public let apple: AppleProvider?
    /// The mounted simulator in demo mode.
    public let simulator: (any MountedDemoProviders)?
    /// Labels say "(simulated)" in demo mode.
    public let simulated: Bool

    public func provider(_ id: String) -> (any SignInProvider)? { providers.first { $0.id == id } }

    /// Builds the providers. Misconfigured ones (a bad Apple key) are skipped and reported to `report`,
    /// so one broken provider does not keep the server from starting.
    static func build(configuration: GatehouseConfiguration, transport: any ProviderTransport, simulator: (any MountedDemoProviders)?,
                      clock: @escaping @Sendable () -> Date, report: (String) -> Void) -> ProviderRegistry {
        let settings = configuration.providers
        var list: [any SignInProvider] = []
        var apple: AppleProvider?
        if let appleSettings = settings.apple {
            do {
                let provider = try AppleProvider(settings: appleSettings, transport: transport, clock: clock)
                apple = provider
                list.append(provider)
            } catch { report("Apple sign-in disabled: \(error)") }
        }
        if let google = settings.google { list.append(OIDCProvider.google(google, transport: transport, clock: clock)) }
        if let github = settings.github { list.append(GitHubProvider(settings: github, transport: transport)) }
        for oidc in settings.oidc { list.append(OIDCProvider(settings: oidc, transport: transport, clock: clock)) }
        return ProviderRegistry(providers: list, apple: apple, simulator: simulator, simulated: simulator != nil)
    }
}
