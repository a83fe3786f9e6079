import Foundation
import GatehouseIdentity
import GatehouseProviders

/// The Content-Security-Policy of Gatehouse's responses: the branding's policy plus `form-action`. Chromium checks
/// `form-action` on every redirect that follows a form submission, so besides `'self'` it names where a submitted
/// form's redirects may end: the providers' authorization endpoints (a provider button posts, then redirects upstream)
/// and every registered client's redirect URIs (consent, sign-in-then-authorize, logout and the native hand-off end
/// there). The clients are read where the CORS origins are, so a client added at runtime is listed within
/// ``WebOriginCache/lifetime``.
struct PageContentSecurityPolicy: Sendable {
    let base: String
    let providerSources: Set<String>
    let clients: WebOriginCache

    init(base: String, providers: ProvidersConfiguration, clients: WebOriginCache) {
        self.base = base
        self.providerSources = Self.sources(of: providers)
        self.clients = clients
    }

    /// RFC 8252 §7.3's loopback redirect, any port.
    static let loopback = "http://127.0.0.1:*"

    /// The header's value, with the clients as last read.
    func header() -> String {
        // Loopback always: a native or CLI client registered a moment ago (RFC 8252's 127.0.0.1 redirect) must not
        // wait for the client list's next read, and a form's redirect to the user's own machine reaches no third party.
        let sources = providerSources.union(clients.formActionSources()).union([Self.loopback]).sorted()
        return base + "; form-action " + (["'self'"] + sources).joined(separator: " ")
    }

    /// A generic OIDC provider's authorization endpoint, when not configured, is discovered on first use (after the
    /// page is served), so its issuer's origin stands for it: discovery documents put both on one host.
    static func sources(of providers: ProvidersConfiguration) -> Set<String> {
        var endpoints: [String] = []
        if let apple = providers.apple { endpoints.append(apple.authorizationEndpoint.absoluteString) }
        if let github = providers.github { endpoints.append(github.authorizationEndpoint.absoluteString) }
        for oidc in [providers.google].compactMap({ $0 }) + providers.oidc {
            endpoints.append(oidc.authorizationEndpoint?.absoluteString ?? oidc.issuer)
        }
        return Set(endpoints.compactMap(FormActionSource.of))
    }
}
