import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting

/// Helpers for driving the authorization server in-process.
struct OAuthFixture {
    let gatehouse: TestGatehouse
    let publicClient: OAuthClient
    let confidentialClient: OAuthClient
    let confidentialSecret: String
    let thirdParty: OAuthClient
    let thirdPartySecret: String
    let browser: BrowserLikeClient

    static let redirect = "https://app.example.test/callback"

    static func make(_ tweak: (inout GatehouseConfiguration) -> Void = { _ in }) async throws -> OAuthFixture {
        let gatehouse = try await TestGatehouse.make(tweak)
        let registry = gatehouse.app.services.tokens.registry
        let (publicClient, _) = try await registry.register(ClientRegistration(
            id: "native-app", name: "Native App", kind: .public, redirectURIs: ["com.example.app:/callback", "http://127.0.0.1/callback"],
            firstParty: true))
        let (confidential, secret) = try await registry.register(ClientRegistration(
            id: "web-app", name: "Web App", kind: .confidential, redirectURIs: [redirect],
            postLogoutRedirectURIs: ["https://app.example.test/bye"],
            grantTypes: ["authorization_code", "refresh_token", "client_credentials", "password"], scopes: ["api.read"],
            firstParty: true, webOrigins: ["https://app.example.test"]))
        let (thirdParty, thirdSecret) = try await registry.register(ClientRegistration(
            id: "partner", name: "Partner Tool", kind: .confidential, redirectURIs: ["https://partner.example.test/cb"]))
        let browser = try await gatehouse.signedUpBrowser()
        return OAuthFixture(gatehouse: gatehouse, publicClient: publicClient, confidentialClient: confidential,
                            confidentialSecret: secret!, thirdParty: thirdParty, thirdPartySecret: thirdSecret!, browser: browser)
    }

    var client: InProcessClient { InProcessClient(gatehouse.app.pipeline) }

    /// Runs /oauth/authorize in the signed-in browser and returns the redirect's query items.
    func authorize(_ parameters: [(String, String)], browser: BrowserLikeClient? = nil) async throws -> (status: Int, location: String?, query: [String: String]) {
        let response = try await (browser ?? self.browser).get("/oauth/authorize?" + URLEncodedForm(pairs: parameters).encoded)
        let location = response.headers["Location"]
        var query: [String: String] = [:]
        if let location, let items = URLComponents(string: location)?.queryItems {
            for item in items { query[item.name] = item.value }
        }
        return (response.status, location, query)
    }

    /// Runs /oauth/authorize and, when it answers with the consent or "continue as" page, clicks
    /// `decision` on the rendered form as a browser would.
    func authorizeAndDecide(_ parameters: [(String, String)], decision: String = "allow", browser: BrowserLikeClient? = nil) async throws
        -> (status: Int, location: String?, query: [String: String]) {
        let browser = browser ?? self.browser
        let page = try await browser.get("/oauth/authorize?" + URLEncodedForm(pairs: parameters).encoded)
        guard page.status == 200 else { return Self.outcome(page) }
        return Self.outcome(try await decide(page, decision, browser: browser))
    }

    /// Submits the decision form of a rendered consent/confirm page, clicking the button `decision`.
    func decide(_ page: TestResponse, _ decision: String, browser: BrowserLikeClient? = nil) async throws -> TestResponse {
        guard let form = HTMLFormSubmission(page.text, action: "/oauth/authorize/decision"),
              let fields = form.fields(clicking: "decision", value: decision) else {
            throw OAuthTestError.noCode("no decision form with a \(decision) button")
        }
        return try await (browser ?? self.browser).post(form.action, fields)
    }

    static func outcome(_ response: TestResponse) -> (status: Int, location: String?, query: [String: String]) {
        let location = response.headers["Location"]
        var query: [String: String] = [:]
        if let location, let items = URLComponents(string: location)?.queryItems {
            for item in items { query[item.name] = item.value }
        }
        return (response.status, location, query)
    }

    /// A code for the public client with PKCE (after its "continue as" step); returns the code and the verifier.
    func publicCode(scope: String = "openid profile email offline_access", nonce: String? = "n-123") async throws -> (code: String, verifier: String) {
        let verifier = PKCE.generateVerifier()
        var parameters = [("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"),
                          ("scope", scope), ("state", "s-1"), ("code_challenge", PKCE.challenge(for: verifier)),
                          ("code_challenge_method", "S256")]
        if let nonce { parameters.append(("nonce", nonce)) }
        let result = try await authorizeAndDecide(parameters)
        guard let code = result.query["code"] else { throw OAuthTestError.noCode(result.location ?? "status \(result.status)") }
        return (code, verifier)
    }

    func token(_ form: [(String, String)], basic: (String, String)? = nil) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let basic {
            headers.set("Authorization", "Basic " + Data("\(basic.0):\(basic.1)".utf8).base64EncodedString())
        }
        return try await post("/oauth/token", form, headers: headers)
    }

    func post(_ path: String, _ form: [(String, String)], headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]) async throws
        -> (status: Int, json: [String: Any], headers: HTTPHeaders)
    {
        let response = try await client.send(.post, path, headers: headers, body: Array(URLEncodedForm(pairs: form).encoded.utf8))
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, json, response.headers)
    }

    /// Decodes a JWT's payload without checking it (tests look at claims).
    static func claims(_ jwt: String) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(data))) as? [String: Any] ?? [:]
    }
}

enum OAuthTestError: Error { case noCode(String) }
