import Foundation
import GatehouseHTTP
import GatehouseServer
import GatehouseTesting
import Testing

/// A request carrying a Gatehouse cookie twice is signed out and logged (second review, item 7). Under a path the
/// cookies are `__Secure-…; Path=/auth`, so a sibling subdomain can plant a same-named cookie with a longer path,
/// which the browser sends first: taking the first cookie signed the victim's browser into the planter's account.
@Suite struct DuplicateCookieAttackTests {
    @Test func aPlantedSessionCookieBesideTheRealOneSignsOut() async throws {
        let gatehouse = try await TestGatehouse.make()
        let attacker = try await gatehouse.signedUpBrowser(email: "mallory@example.com")
        let victim = try await gatehouse.signedUpBrowser(email: "ada@example.com")
        let planted = try #require(attacker.cookies["gatehouse_session"])
        let own = try #require(victim.cookies["gatehouse_session"])
        let raw = InProcessClient(gatehouse.app.pipeline)
        // What the browser sends: the longer-path (planted) cookie first, then the victim's own.
        let cookie = "gatehouse_session=\(planted); gatehouse_session=\(own)"
        let account = try await raw.send(.get, "/account", headers: ["Cookie": cookie], body: [])
        #expect(account.status == 303 && account.headers["Location"]?.hasPrefix("/sign-in") == true,
                "signed out, not the planter's account: \(account.status)")
        #expect(!account.text.contains("mallory@example.com"))
        let native = try await raw.send(.get, "/native/session", headers: ["Cookie": cookie], body: [])
        #expect(native.status == 401)
        // Split over two Cookie headers it is the same.
        var twoHeaders = HTTPHeaders()
        twoHeaders.add("Cookie", "gatehouse_session=\(planted)")
        twoHeaders.add("Cookie", "gatehouse_session=\(own)")
        #expect(try await raw.send(.get, "/account", headers: twoHeaders, body: []).status == 303)
        #expect(gatehouse.log.all.contains { $0.contains("duplicate session or csrf cookie") })
        #expect(!gatehouse.log.all.joined().contains(planted) && !gatehouse.log.all.joined().contains(own), "values are never logged")
        // One cookie is still a session.
        #expect(try await raw.send(.get, "/account", headers: ["Cookie": "gatehouse_session=\(own)"], body: []).status == 200)
    }

    /// A planted pre-session CSRF cookie beside the real one: the rendered form's token does not pass.
    @Test func aRepeatedCSRFCookieRefusesTheForm() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        let browser = gatehouse.browser()
        let page = try await browser.get("/sign-in")
        let token = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        let real = try #require(browser.cookies["gatehouse_csrf"])
        let planted = String(repeating: "A", count: 43)
        let raw = InProcessClient(gatehouse.app.pipeline)
        let body = Array(URLEncodedForm(pairs: [("csrf_token", token), ("email", "ada@example.com"),
                                                ("password", "correct horse battery")]).encoded.utf8)
        let refused = try await raw.send(.post, "/sign-in", headers: ["Cookie": "gatehouse_csrf=\(planted); gatehouse_csrf=\(real)",
                                                                       "Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(refused.status == 403)
        let accepted = try await raw.send(.post, "/sign-in", headers: ["Cookie": "gatehouse_csrf=\(real)",
                                                                        "Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(accepted.status == 303)
    }
}
