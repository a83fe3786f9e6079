import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

/// `HEAD` never runs a side-effecting `GET` handler (405 with an `Allow` without HEAD).
@Suite struct HeadSideEffectAttackTests {
    @Test func headSpendsNothing() async throws {
        let oauth = try await OAuthFixture.make()
        let authorize = "/oauth/authorize?" + URLEncodedForm(pairs: [("response_type", "code"), ("client_id", "web-app"),
                                                                    ("redirect_uri", OAuthFixture.redirect)]).encoded
        for target in [authorize, "/native/redeem?token=t&verifier=v&app=native-app", "/email/verify/abc"] {
            let head = try await oauth.browser.send(.head, target, headers: HTTPHeaders(), body: [])
            #expect(head.status == 405, "\(target)")
            #expect(head.headers["Allow"]?.contains("GET") == true && head.headers["Allow"]?.contains("HEAD") == false)
        }
        // The verification link a HEAD touched still works for the GET.
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser(email: "grace@example.com", verify: false)
        let link = try #require(await gatehouse.mailer.link(to: "grace@example.com", containing: "/email/verify/"))
        let path = try #require(URLComponents(string: link)?.path)
        let browser = gatehouse.browser()
        #expect(try await browser.send(.head, path, headers: HTTPHeaders(), body: []).status == 405)
        #expect(try await gatehouse.database.users.find(email: "grace@example.com")?.emailVerified == false)
        _ = try await browser.submit(path, to: path, [])
        #expect(try await gatehouse.database.users.find(email: "grace@example.com")?.emailVerified == true)
        // Read-only routes still answer HEAD.
        for target in ["/healthz", "/oauth/jwks", "/.well-known/openid-configuration", "/sign-in", "/sign-up", "/password/forgot"] {
            #expect(try await browser.send(.head, target, headers: HTTPHeaders(), body: []).status == 200, "\(target)")
        }
    }

    /// On the wire too: libmicrohttpd drops a HEAD answer's body and keeps its headers; a refused HEAD is the same 405.
    @Test(arguments: TestTransport.allCases)
    func headOverEitherTransport(_ transport: TestTransport) async throws {
        let gatehouse = try await TestGatehouse.make()
        try await transport.run(gatehouse.app.pipeline) { client in
            for target in ["/healthz", "/oauth/jwks", "/sign-in"] {
                let get = try await client.send(.get, target, headers: HTTPHeaders(), body: [])
                let head = try await client.send(.head, target, headers: HTTPHeaders(), body: [])
                #expect(head.status == 200 && get.status == 200, "\(target)")
                #expect(head.body.isEmpty && !get.body.isEmpty, "\(target): HEAD carries no body")
                #expect(head.headers["Content-Type"] == get.headers["Content-Type"], "\(target)")
            }
            let refused = try await client.send(.head, "/email/verify/abc", headers: HTTPHeaders(), body: [])
            #expect(refused.status == 405)
            #expect(refused.headers["Allow"]?.contains("HEAD") == false)
        }
    }
}
