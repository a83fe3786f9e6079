import Foundation
import GatehouseCrypto

/// A provider's endpoints, from configuration overrides and (when something is missing) discovery.
public struct OIDCEndpoints: Sendable, Equatable {
    public var issuer: String
    public var authorization: URL
    public var token: URL
    public var jwks: URL
    public var userinfo: URL?
}

/// Fetches and caches discovery for one provider. Discovery is fetched on first use, not at start-up,
/// so an unreachable provider disables only its own button; a failed fetch is retried on the next sign-in.
actor OIDCDiscovery {
    private let settings: OIDCSettings
    private let transport: any ProviderTransport
    private let clock: @Sendable () -> Date
    private var cached: (endpoints: OIDCEndpoints, until: Date)?
    private var validator: IDTokenValidator?

    init(settings: OIDCSettings, transport: any ProviderTransport, clock: @escaping @Sendable () -> Date) {
        self.settings = settings; self.transport = transport; self.clock = clock
    }

    func endpoints() async throws -> OIDCEndpoints {
        if let authorization = settings.authorizationEndpoint, let token = settings.tokenEndpoint, let jwks = settings.jwksURI {
            return OIDCEndpoints(issuer: settings.issuer, authorization: authorization, token: token, jwks: jwks,
                                 userinfo: settings.userinfoEndpoint)
        }
        if let cached, cached.until > clock() { return cached.endpoints }
        guard let url = settings.resolvedDiscoveryURL else { throw ProviderError.misconfigured("no discovery URL") }
        let document = try await Self.fetch(url, transport: transport)
        // OIDC Discovery §4.3: the document's issuer must be exactly the configured one.
        guard document["issuer"]?.stringValue == settings.issuer else {
            throw ProviderError.misconfigured("discovery issuer \(document["issuer"]?.stringValue ?? "missing") is not \(settings.issuer)")
        }
        func endpoint(_ name: String, _ override: URL?) throws -> URL {
            if let override { return override }
            guard let text = document[name]?.stringValue, let url = URL(string: text) else {
                throw ProviderError.misconfigured("discovery has no \(name)")
            }
            return url
        }
        let endpoints = OIDCEndpoints(issuer: settings.issuer,
                                      authorization: try endpoint("authorization_endpoint", settings.authorizationEndpoint),
                                      token: try endpoint("token_endpoint", settings.tokenEndpoint),
                                      jwks: try endpoint("jwks_uri", settings.jwksURI),
                                      userinfo: settings.userinfoEndpoint ?? document["userinfo_endpoint"]?.stringValue.flatMap(URL.init(string:)))
        cached = (endpoints, clock().addingTimeInterval(3600))
        return endpoints
    }

    /// The id_token validator for the discovered JWKS (kept, so its key cache survives between sign-ins).
    func idTokenValidator() async throws -> IDTokenValidator {
        let endpoints = try await endpoints()
        if let validator, validator.jwks.url == endpoints.jwks { return validator }
        let made = IDTokenValidator(jwksURI: endpoints.jwks, issuers: Set([settings.issuer] + settings.extraIssuers),
                                    audiences: Set([settings.clientID] + settings.extraAudiences),
                                    algorithms: [.rs256, .es256], transport: transport, clock: clock)
        validator = made
        return made
    }

    /// GETs a discovery document (also used by `gatehouse providers check`).
    static func fetch(_ url: URL, transport: any ProviderTransport) async throws -> [String: JSONValue] {
        try await transport.json(ProviderHTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
    }
}
