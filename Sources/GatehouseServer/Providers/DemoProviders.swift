import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseProviders

/// Demo mode (`GATEHOUSE_DEMO=1`): the provider simulator is mounted under `/_sim` and Apple, Google and
/// GitHub are enabled against it — unless the config file configures a provider itself.
enum DemoProviders {
    static let prefix = "/_sim"

    /// The simulator and the configuration with the simulated providers filled in.
    static func setUp(_ configuration: inout GatehouseConfiguration, clock: @escaping @Sendable () -> Date) throws -> ProviderSimulator {
        var base = configuration.publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let demo = try ProviderSimulator.Configuration.demo(
            baseURL: base + prefix, appleRedirectURI: base + "/auth/apple/callback",
            googleRedirectURI: base + "/auth/google/callback", githubRedirectURI: base + "/auth/github/callback")
        var simulatorConfiguration = demo.configuration
        simulatorConfiguration.clock = clock
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
        if !configuration.clients.contains(where: { $0.registration.id == demoNativeClientID }) {
            configuration.clients.append(ConfiguredClient(registration: ClientRegistration(
                id: demoNativeClientID, name: "Gatehouse Demo App", kind: .public, redirectURIs: ["\(DemoSetup.nativeBundleID):/oauth"],
                grantTypes: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"],
                firstParty: true, metadata: #"{"callback_schemes": ["gatehouse-demo"], "bundle_ids": ["\#(DemoSetup.nativeBundleID)"]}"#),
                secret: nil))
        }
        return simulator
    }

    /// The demo native app's client id.
    static let demoNativeClientID = "demo-native"
}

/// Sends requests for URLs under `base` straight to an in-process pipeline (the mounted simulator),
/// everything else to `fallback`. The server never calls itself over the network, which on a small
/// thread pool could wait on itself.
public struct InProcessProviderTransport: ProviderTransport {
    let base: String
    let pipeline: RequestPipeline
    let fallback: any ProviderTransport

    public init(base: String, pipeline: RequestPipeline, fallback: any ProviderTransport) {
        self.base = base; self.pipeline = pipeline; self.fallback = fallback
    }

    public func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        let text = request.url.absoluteString
        guard text.hasPrefix(base + "/") else { return try await fallback.send(request) }
        // The simulator's routes include its mount prefix: keep the whole path, drop only the origin.
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let target = (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.set(name, value) }
        let method = HTTPMethod(request.method)
        let outcome = pipeline.start(method: method, target: target, headers: headers, body: request.body, remoteAddress: "127.0.0.1")
        let response: Response
        switch outcome {
        case .ready(let ready): response = ready
        case .pending(let work): response = await work()
        }
        var out: [String: String] = [:]
        for name in ["Content-Type", "Cache-Control", "Location"] { if let value = response.headers[name] { out[name] = value } }
        return ProviderHTTPResponse(status: response.status.code, headers: out, body: response.body)
    }
}
