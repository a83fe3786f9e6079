import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseProviders
import GatehouseServer

/// Demo mode (`GATEHOUSE_DEMO=1`): the provider simulator is mounted under `/_sim` and Apple, Google and
/// GitHub are enabled against it — unless the config file configures a provider itself.
///
/// Its own target, so the server target never links the simulator: the `gatehouse` executable (and the
/// tests that want demo mode) compose it in by passing it to ``GatehouseApp``.
public struct SimulatedDemoProviders: DemoProviders {
    static let prefix = "/_sim"

    public init() {}

    /// The simulator and the configuration with the simulated providers filled in.
    public func setUp(_ configuration: inout GatehouseConfiguration, clock: @escaping @Sendable () -> Date) throws -> any MountedDemoProviders {
        var base = configuration.publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let demo = try ProviderSimulator.Configuration.demo(
            baseURL: base + Self.prefix, appleRedirectURI: base + "/auth/apple/callback",
            googleRedirectURI: base + "/auth/google/callback", githubRedirectURI: base + "/auth/github/callback")
        var simulatorConfiguration = demo.configuration
        simulatorConfiguration.clock = clock
        // Routes are matched after BasePathMiddleware took the public URL's path off: register them at `/_sim`.
        simulatorConfiguration.pathPrefix = Self.prefix
        let simulator = try ProviderSimulator(configuration: simulatorConfiguration)
        func url(_ text: String) -> URL { URL(string: text)! }
        if configuration.providers.apple == nil {
            configuration.providers.apple = AppleSettings(
                clientID: demo.apple.clientID, teamID: demo.apple.teamID, keyID: demo.apple.keyID, privateKeyPEM: demo.apple.privateKeyPEM,
                authorizationEndpoint: url(demo.apple.authorizationEndpoint), tokenEndpoint: url(demo.apple.tokenEndpoint),
                jwksURI: url(demo.apple.jwksURI), revocationEndpoint: url(demo.apple.revocationEndpoint))
        }
        if configuration.providers.google == nil {
            configuration.providers.google = GoogleSettings.make(clientID: demo.google.clientID, clientSecret: demo.google.clientSecret,
                                                                 discoveryURL: url(demo.google.discoveryURL), issuer: demo.google.issuer)
        }
        if configuration.providers.github == nil {
            configuration.providers.github = GitHubSettings(
                clientID: demo.github.clientID, clientSecret: demo.github.clientSecret,
                authorizationEndpoint: url(demo.github.authorizationEndpoint), tokenEndpoint: url(demo.github.tokenEndpoint),
                apiBaseURL: url(demo.github.apiBaseURL))
        }
        // The demo iOS app (F2 hand-off and F3 native Apple), unless the config file registers one by that id.
        if !configuration.clients.contains(where: { $0.registration.id == Self.demoNativeClientID }) {
            configuration.clients.append(ConfiguredClient(registration: ClientRegistration(
                id: Self.demoNativeClientID, name: "Gatehouse Demo App", kind: .public, redirectURIs: ["\(DemoSetup.nativeBundleID):/oauth"],
                grantTypes: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"],
                firstParty: true, metadata: """
                    {"callback_schemes": ["gatehouse-demo"], "bundle_ids": ["\(DemoSetup.nativeBundleID)"],
                     "google_client_ids": ["\(Self.demoNativeGoogleClientID)", "\(demo.google.clientID)"]}
                    """),
                secret: nil))
        }
        return MountedSimulator(simulator: simulator)
    }

    /// The demo native app's client id.
    public static let demoNativeClientID = "demo-native"
    /// The demo app's own Google client (`azp` of its native ID tokens; `aud` is the server's client when asked).
    static let demoNativeGoogleClientID = DemoSetup.nativeGoogleClientID
}

/// The simulator as the server mounts it.
public struct MountedSimulator: MountedDemoProviders {
    /// The running simulator (tests read what it recorded: revocations, sign-ins).
    public let simulator: ProviderSimulator

    public var baseURL: String { simulator.configuration.baseURL }
    public func makeRouter() -> Router { simulator.makeRouter() }
    public func register(into router: inout Router) { simulator.register(into: &router) }
}

