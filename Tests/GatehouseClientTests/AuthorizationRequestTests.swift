import Foundation
import GatehouseClient
import Testing

@Suite struct AuthorizationRequestTests {
    private func query(_ url: URL) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    }

    @Test func carriesPKCEStateNonceAndScopes() throws {
        let request = AuthorizationRequest.make(metadata: Fixtures.metadata, client: Fixtures.client, scopes: ["openid", "email"], additionalParameters: ["prompt": "login"])
        let items = query(request.url)
        #expect(request.url.absoluteString.hasPrefix("https://id.example.com/oauth/authorize?"))
        #expect(items["response_type"] == "code")
        #expect(items["client_id"] == "app-1")
        #expect(items["redirect_uri"] == "com.example.app:/oauth/callback")
        #expect(items["scope"] == "openid email")
        #expect(items["state"] == request.state)
        #expect(items["nonce"] == request.nonce)
        #expect(items["code_challenge_method"] == "S256")
        #expect(items["code_challenge"] == PKCE.challenge(for: request.codeVerifier))
        #expect(items["prompt"] == "login")
        #expect(PKCE.isValidVerifier(request.codeVerifier))
    }

    @Test func extraParametersCannotOverrideSecurityParameters() {
        let request = AuthorizationRequest.make(
            metadata: Fixtures.metadata, client: Fixtures.client, scopes: ["openid"],
            additionalParameters: ["state": "attacker", "code_challenge_method": "plain", "redirect_uri": "https://evil.example"]
        )
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!.queryItems!
        #expect(items.filter { $0.name == "state" }.map(\.value) == [request.state])
        #expect(items.filter { $0.name == "code_challenge_method" }.map(\.value) == ["S256"])
        #expect(items.filter { $0.name == "redirect_uri" }.count == 1)
    }

    @Test func eachRequestHasFreshSecrets() {
        let a = AuthorizationRequest.make(metadata: Fixtures.metadata, client: Fixtures.client, scopes: [])
        let b = AuthorizationRequest.make(metadata: Fixtures.metadata, client: Fixtures.client, scopes: [])
        #expect(a.state != b.state)
        #expect(a.nonce != b.nonce)
        #expect(a.codeVerifier != b.codeVerifier)
    }
}
