import Foundation
import GatehouseCrypto
@testable import GatehouseProviders
import Testing

/// GitHub's `/user` answer decides the identity's subject. Found by fuzz/providers: a non-integer `id`
/// trapped the process (`Int64(1e300)`) or truncated to another user's id (`1.5` → `1`).
@Suite struct GitHubUserIDTests {
    private struct Scripted: ProviderTransport {
        let user: String
        func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
            switch request.url.path {
            case "/token": ProviderHTTPResponse(status: 200, body: Array(#"{"access_token":"gho_t"}"#.utf8))
            case "/api/user": ProviderHTTPResponse(status: 200, body: Array(user.utf8))
            case "/api/user/emails":
                ProviderHTTPResponse(status: 200, body: Array(#"[{"email":"Ada@Example.com","primary":true,"verified":true}]"#.utf8))
            default: ProviderHTTPResponse(status: 404, body: [])
            }
        }
    }

    private func signIn(user: String) async throws -> ExternalProfile {
        let base = URL(string: "https://github.example")!
        let provider = GitHubProvider(settings: GitHubSettings(clientID: "gh", clientSecret: "s",
                                                               authorizationEndpoint: base.appendingPathComponent("authorize"),
                                                               tokenEndpoint: base.appendingPathComponent("token"),
                                                               apiBaseURL: base.appendingPathComponent("api")),
                                      transport: Scripted(user: user))
        return try await provider.completeSignIn(callback: ["code": "c"], flow: ProviderFlow(provider: "github", redirectURI: "https://g.example/cb"))
    }

    @Test func integerIDBecomesTheSubject() async throws {
        let profile = try await signIn(user: #"{"id":9007199254740993,"login":"ada"}"#)
        #expect(profile.subject == "9007199254740993")
        #expect(profile.email == "ada@example.com")
    }

    @Test(arguments: [#"{"id":1e300}"#, #"{"id":1.5}"#, #"{"id":-3}"#, #"{"id":0}"#, #"{"id":"12"}"#, #"{"id":1e2}"#])
    func nonIntegerIDIsRefused(user: String) async throws {
        await #expect(throws: ProviderError.self) { _ = try await signIn(user: user) }
    }
}
