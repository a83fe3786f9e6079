import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore
import GatehouseTesting
import Synchronization
import Testing

/// Gatehouse is sign-in only (option b): the tokens Apple, Google and GitHub give
/// Gatehouse never reach a client — not in token responses, ID or access tokens, userinfo, or
/// introspection. Apps that call a provider's API use that provider's SDK themselves
/// (docs/providers/api-access.md).
@Suite struct ProviderTokensStayInsideTests {
    static let redirect = "https://app.example.test/callback"
    static let secret = "provider-tokens-secret-0123456789abcdef"

    @Test(arguments: ["google", "github", "apple"])
    func noProviderTokenIsEverReturnedToAClient(_ provider: String) async throws {
        let harness = try await ProviderHarness.make()
        try await harness.app.services.keys.ensureSigningKey()
        _ = try await harness.app.services.tokens.registry.apply(ClientRegistration(
            id: "api-app", name: "API App", kind: .confidential, redirectURIs: [Self.redirect], firstParty: true), secret: Self.secret)
        // Record every token the provider hands Gatehouse.
        let seen = Mutex<Set<String>>([])
        harness.faults.state.withLock { state in
            state.rewrite = { _, response in
                if let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] {
                    for key in ["access_token", "refresh_token", "id_token"] {
                        if let value = object[key] as? String, value.count >= 16 { _ = seen.withLock { $0.insert(value) } }
                    }
                }
                return response
            }
        }

        // Sign in through the client's authorization request (one tap into the provider).
        let browser = harness.browser()
        let start = try await browser.get("/oauth/authorize?" + URLEncodedForm(pairs: [
            ("response_type", "code"), ("client_id", "api-app"), ("redirect_uri", Self.redirect),
            ("scope", "openid email profile offline_access"), ("state", "s"), ("provider", provider)]).encoded)
        let picker = try await browser.get(ProviderHarness.path(start.headers["Location"]))
        let answer = try await browser.post(PageHTML.formAction(picker.text) ?? "",
                                            PageHTML.hiddenFields(picker.text).filter { $0.0 != "csrf_token" }
                                                + [("email", "ada@example.com"), ("name", "Ada"), ("action", "allow")])
        let callback = answer.status == 200
            ? try await browser.post(ProviderHarness.path(PageHTML.formAction(answer.text)), PageHTML.hiddenFields(answer.text))
            : try await browser.get(ProviderHarness.path(answer.headers["Location"]))
        let finish = try await browser.get(try #require(callback.headers["Location"]))
        let approved = try await browser.get(try #require(finish.headers["Location"]))
        let code = try #require(URLComponents(string: approved.headers["Location"] ?? "")?.queryItems?.first { $0.name == "code" }?.value)
        let providerTokens = seen.withLock { $0 }
        #expect(!providerTokens.isEmpty, "the provider did issue tokens to Gatehouse")

        // Everything a client can get back.
        let client = InProcessClient(harness.app.pipeline)
        let basic: HTTPHeaders = ["Authorization": "Basic " + Data("api-app:\(Self.secret)".utf8).base64EncodedString()]
        var answers: [String] = []
        let tokens = try await client.post("/oauth/token", form: [("grant_type", "authorization_code"), ("code", code),
                                                                   ("redirect_uri", Self.redirect)], headers: basic)
        #expect(tokens.status == 200, "\(tokens.text)")
        answers.append(tokens.text + String(describing: tokens.headers))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(tokens.body)) as? [String: Any])
        let access = try #require(json["access_token"] as? String), refresh = try #require(json["refresh_token"] as? String)
        for jwt in [access, json["id_token"] as? String ?? ""] {
            for part in jwt.split(separator: ".").prefix(2) { answers.append(String(decoding: Base64URL.decode(String(part)) ?? [], as: UTF8.self)) }
        }
        answers.append(try await client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"]).text)
        answers.append(try await client.post("/oauth/introspect", form: [("token", access)], headers: basic).text)
        answers.append(try await client.post("/oauth/introspect", form: [("token", refresh)], headers: basic).text)
        let refreshed = try await client.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: basic)
        #expect(refreshed.status == 200)
        answers.append(refreshed.text)
        answers.append(try await browser.get("/account").text)
        answers.append(try await browser.get("/native/session").text)

        for token in providerTokens {
            for text in answers { #expect(!text.contains(token), "a \(provider) token leaked to the client") }
        }
        // What Gatehouse keeps (Apple's refresh token, for revocation) is sealed, never stored in the clear.
        for identity in try await harness.identities(email: "ada@example.com") {
            if let sealed = identity.sealedRefreshToken {
                let stored = String(decoding: sealed, as: UTF8.self)
                for token in providerTokens { #expect(!stored.contains(token)) }
            }
        }
    }
}
