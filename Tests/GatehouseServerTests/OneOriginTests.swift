import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseTesting
import Testing

/// Gatehouse served under a path of the product's origin: `GATEHOUSE_PUBLIC_URL=https://app.example/auth`.
@Suite struct OneOriginTests {
    static let publicURL = "https://app.example/auth"

    static func make() async throws -> TestGatehouse {
        try await TestGatehouse.make { configuration in
            configuration = try! GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": publicURL])
            configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        }
    }

    /// Signs up through the prefixed pages: sign-up, the verification link from the mail (absolute, with the prefix),
    /// then sign-in.
    static func signedUp(_ gatehouse: TestGatehouse, email: String = "ada@example.com") async throws -> BrowserLikeClient {
        let browser = gatehouse.browser()
        let response = try await browser.submit("/auth/sign-up", to: "/auth/sign-up",
                                                [("email", email), ("password", "correct horse battery"), ("name", "Ada")])
        #expect(response.status == 303 && response.headers["Location"] == "/auth/sign-up/check-email")
        let link = try #require(await gatehouse.mailer.link(to: email, containing: "/email/verify/"))
        #expect(link.hasPrefix(publicURL + "/email/verify/"), "mail links carry the prefix")
        let path = String(link.dropFirst("https://app.example".count))
        #expect(try await browser.get(path).status == 200, "the link shows a page")
        #expect(try await browser.submit(path, to: path, [("password", "correct horse battery")]).status == 200)
        let signIn = try await browser.submit("/auth/sign-in", to: "/auth/sign-in", [("email", email), ("password", "correct horse battery")])
        #expect(signIn.status == 303 && signIn.headers["Location"]?.hasPrefix("/auth/") == true)
        return browser
    }

    /// Every root-relative `href`, `action` and `src` of a page.
    static func references(_ html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:href|action|src)="(/[^"]*)""#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map {
            String(html[Range($0.range(at: 1), in: html)!])
        }
    }

    @Test func requestsOutsideThePrefixAre404() async throws {
        let gatehouse = try await Self.make()
        let browser = gatehouse.browser()
        for path in ["/sign-in", "/account", "/.well-known/openid-configuration", "/oauth/jwks", "/healthz", "/authsign-in", "/"] {
            #expect(try await browser.get(path).status == 404, "\(path)")
        }
        #expect(try await browser.get("/auth/sign-in").status == 200)
        #expect(try await browser.get("/auth/healthz").status == 200)
    }

    @Test func everyPagesLinksActionsAndAssetsCarryThePrefix() async throws {
        let gatehouse = try await Self.make()
        let anonymous = gatehouse.browser()
        var pages: [String: String] = [:]
        for path in ["/auth/sign-in", "/auth/sign-up", "/auth/password/forgot", "/auth/nothing-here"] {
            pages[path] = try await anonymous.get(path).text
        }
        let signedIn = try await Self.signedUp(gatehouse)
        pages["/auth/account"] = try await signedIn.get("/auth/account").text
        pages["/auth/oauth/logout"] = try await signedIn.get("/auth/oauth/logout").text   // the confirmation page
        for (path, html) in pages {
            let references = Self.references(html)
            #expect(!references.isEmpty, "\(path) has links")
            for reference in references { #expect(reference.hasPrefix("/auth/"), "\(path): \(reference)") }
        }
        #expect(pages["/auth/account"]!.contains("ada@example.com"))
        #expect(pages["/auth/oauth/logout"]!.contains(#"action="/auth/oauth/logout""#))
    }

    @Test func redirectsCarryThePrefix() async throws {
        let gatehouse = try await Self.make()
        let browser = gatehouse.browser()
        let account = try await browser.get("/auth/account")
        #expect(account.status == 303)
        // return_to is a path in Gatehouse's own space; the redirect itself is public.
        #expect(account.headers["Location"] == "/auth/sign-in?return_to=%2Faccount")
        let signIn = try await Self.signedUp(gatehouse).get("/auth/sign-in")
        if signIn.status == 303 { #expect(signIn.headers["Location"]?.hasPrefix("/auth/") == true) }
    }

    @Test func cookiesAreScopedToThePrefixWithSecurePrefix() async throws {
        let gatehouse = try await Self.make()
        _ = try await Self.signedUp(gatehouse)   // an account
        let browser = gatehouse.browser()
        let page = try await browser.get("/auth/sign-in")
        let response = try await browser.post("/auth/sign-in", [("csrf_token", BrowserLikeClient.hiddenField("csrf_token", in: page.text) ?? ""),
                                                                ("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(response.status == 303)
        let cookies = page.headers.values("Set-Cookie") + response.headers.values("Set-Cookie")
        #expect(!cookies.isEmpty)
        for cookie in cookies {
            // __Host- would require Path=/: under a path the cookies are __Secure-, Secure, and Path=/auth.
            #expect(cookie.hasPrefix("__Secure-gatehouse_"), "\(cookie)")
            #expect(cookie.contains("; Path=/auth;") && cookie.contains("; Secure"), "\(cookie)")
        }
        #expect(cookies.contains { $0.hasPrefix("__Secure-gatehouse_session=") })
        #expect(try await browser.get("/auth/account").status == 200, "the session works under the prefix")
    }

    @Test func cookiesAtTheRootKeepTheHostPrefix() async throws {
        let gatehouse = try await TestGatehouse.make { configuration in
            configuration = try! GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "https://id.example"])
            configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        }
        let page = try await gatehouse.browser().get("/sign-up")
        let cookies = page.headers.values("Set-Cookie")
        #expect(!cookies.isEmpty && cookies.allSatisfy { $0.hasPrefix("__Host-gatehouse_") && $0.contains("; Path=/;") })
    }

    @Test func discoveryAndJWKSLiveUnderTheIssuersPath() async throws {
        let gatehouse = try await Self.make()
        let client = InProcessClient(gatehouse.app.pipeline)
        let discovery = try await client.get("/auth/.well-known/openid-configuration")
        #expect(discovery.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(discovery.body)) as? [String: Any])
        #expect(document["issuer"] as? String == Self.publicURL)
        for key in ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri", "end_session_endpoint"] {
            #expect((document[key] as? String)?.hasPrefix(Self.publicURL + "/") == true, "\(key)")
        }
        let jwksPath = try #require((document["jwks_uri"] as? String)?.dropFirst("https://app.example".count))
        let jwks = try await client.get(String(jwksPath))
        #expect(jwks.status == 200 && jwks.text.contains("\"keys\""))
        #expect(try await client.get("/auth/.well-known/oauth-authorization-server").status == 200)
    }

    @Test func authorizeSendsTheBrowserToThePrefixedSignInAndBack() async throws {
        let gatehouse = try await Self.make()
        let registry = gatehouse.app.services.tokens.registry
        _ = try await registry.register(ClientRegistration(id: "rails", name: "Rails", kind: .confidential,
                                                           redirectURIs: ["https://app.example/login/gatehouse/callback"], firstParty: true))
        let browser = gatehouse.browser()
        let query = URLEncodedForm(pairs: [("response_type", "code"), ("client_id", "rails"), ("scope", "openid"), ("state", "s"),
                                           ("redirect_uri", "https://app.example/login/gatehouse/callback")]).encoded
        let first = try await browser.get("/auth/oauth/authorize?" + query)
        #expect(first.status == 303)
        let signInPath = try #require(first.headers["Location"])
        #expect(signInPath.hasPrefix("/auth/sign-in?return_to=%2Foauth%2Fauthorize"))
        _ = try await Self.signedUp(gatehouse)   // an account to sign in to
        let page = try await browser.get(signInPath)
        #expect(Self.references(page.text).allSatisfy { $0.hasPrefix("/auth/") })
        let returnTo = try #require(BrowserLikeClient.hiddenField("return_to", in: page.text))
        let signedIn = try await browser.post("/auth/sign-in", [("csrf_token", BrowserLikeClient.hiddenField("csrf_token", in: page.text) ?? ""),
                                                                ("return_to", HTMLForm.unescape(returnTo)),
                                                                ("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(signedIn.status == 303)
        let back = try #require(signedIn.headers["Location"])
        #expect(back.hasPrefix("/auth/oauth/authorize?"))
        let code = try await browser.get(back)
        let location = try #require(code.headers["Location"])
        #expect(location.hasPrefix("https://app.example/login/gatehouse/callback?code="))
        #expect(location.contains("iss=https%3A%2F%2Fapp.example%2Fauth") || location.contains("iss=https://app.example/auth"))
    }

    @Test func bridgeScriptAndPathConfigurationAreServedUnderThePrefix() async throws {
        let gatehouse = try await Self.make()
        let client = InProcessClient(gatehouse.app.pipeline)
        let bridge = try await client.get("/auth/assets/gatehouse-bridge.js")
        #expect(bridge.status == 200 && bridge.headers["Content-Type"]?.contains("javascript") == true)
        // Pages load it from under the prefix; the script derives Gatehouse's base path from where it was loaded.
        let page = try await client.get("/auth/sign-in")
        #expect(page.text.contains(#"src="/auth/assets/gatehouse-bridge.js""#))
        #expect(bridge.text.contains(#"new URL("..", document.currentScript.src).pathname"#))
        #expect(try await client.get("/auth/configurations/ios_v1.json").status == 200)
        #expect(try await client.get("/auth/configurations/android_v1.json").status == 200)
        #expect(try await client.get("/configurations/ios_v1.json").status == 404)
    }

    @Test func aPublicURLPathMustBePlainSegments() {
        for bad in ["https://app.example/a/../b", "https://app.example/a%20b", "https://app.example//auth"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": bad])
            }
        }
        #expect((try? GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "https://app.example/auth/"]))?.basePath.prefix == "/auth")
    }
}
