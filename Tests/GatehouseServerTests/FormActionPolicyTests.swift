import Foundation
import GatehouseIdentity
import GatehouseProviders
import GatehouseServer
import Testing

/// The pages' CSP `form-action`: `'self'` plus exactly where a submitted form's redirects may end (the providers'
/// authorization endpoints, the registered clients' redirect and logout URIs), read again when clients change.
@Suite struct FormActionPolicyTests {
    static func formAction(_ header: String?) -> [String] {
        let directive = (header ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("form-action ") }
        guard directive.count == 1 else { return [] }
        return directive[0].split(separator: " ").dropFirst().map(String.init)
    }

    @Test func thePagesListExactlyTheProvidersAndTheClientsTargets() async throws {
        let gatehouse = try await TestGatehouse.make { configuration in
            configuration.providers.github = GitHubSettings(clientID: "gh", clientSecret: "s",
                                                            authorizationEndpoint: URL(string: "https://gh.example.test:8443/login/oauth/authorize")!)
            configuration.providers.oidc = [OIDCSettings(id: "corp", displayName: "Corp", issuer: "https://idp.example.test/tenant",
                                                         clientID: "c", clientSecret: "s")]
        }
        let registry = gatehouse.app.services.tokens.registry
        _ = try await registry.register(ClientRegistration(id: "web", name: "Web", kind: .confidential,
                                                           redirectURIs: ["https://app.example.test/auth/callback"],
                                                           postLogoutRedirectURIs: ["https://www.example.test/signed-out"]))
        _ = try await registry.register(ClientRegistration(id: "ios", name: "iOS", kind: .public,
                                                           redirectURIs: ["com.example.app:/oauth/callback", "http://127.0.0.1/callback"]))
        await gatehouse.app.readClients()
        let page = try await gatehouse.browser().get("/sign-in")
        let sources = Self.formAction(page.headers["Content-Security-Policy"])
        #expect(sources.first == "'self'")
        #expect(Set(sources) == ["'self'", "https://gh.example.test:8443", "https://idp.example.test", "https://app.example.test",
                                 "https://www.example.test", "com.example.app:", "http://127.0.0.1:*"])
        #expect(sources.count == Set(sources).count, "each source once")
        #expect(!sources.contains("*") && !sources.contains { $0.contains("://*") }, "no host wildcard")
    }

    @Test func aClientAddedLaterIsListedOnceTheClientsAreReadAgain() async throws {
        let gatehouse = try await TestGatehouse.make()
        await gatehouse.app.readClients()
        #expect(Self.formAction(try await gatehouse.browser().get("/sign-in").headers["Content-Security-Policy"]) == ["'self'", "http://127.0.0.1:*"],
                "loopback only, always there")
        _ = try await gatehouse.app.services.tokens.registry.register(ClientRegistration(
            id: "late", name: "Late", kind: .public, redirectURIs: ["https://late.example.test/cb"]))
        await gatehouse.app.readClients()
        #expect(Self.formAction(try await gatehouse.browser().get("/sign-in").headers["Content-Security-Policy"])
                == ["'self'", "http://127.0.0.1:*", "https://late.example.test"])
    }
}
