import Foundation
import GatehouseServer
import GatehouseTesting
import Testing

/// A return path cannot leave Gatehouse's space under the one-origin prefix: `/auth` + `/../x` would be any page
/// of the product's app (second review, item 6).
@Suite struct ReturnPathAttackTests {
    @Test(arguments: ["/%2e%2e/x", "/%2E%2E/x", "/.%2e/x", "/%2e./x", "/a/%2e%2e/%2e%2e/x", "/%252e%252e/x", "/..%2fx",
                      "/a%2f..%2f..%2fx", "/%2e%2e%5cx", "/%2e", "/x/%2e%2e", "/%2f%2fevil.example", "/%zz"])
    func encodedDotSegmentsAreRefused(_ attack: String) {
        #expect(ReturnPath.validated(attack) == nil, "\(attack)")
    }

    @Test(arguments: [("/../x", "/x"), ("/a/../../x?y=1", "/x?y=1"), ("/./account", "/account"), ("/a/./b/../c", "/a/c"),
                      ("/oauth/authorize?client_id=web&redirect_uri=https%3A%2F%2Fapp.example%2F..%2Fcb", "/oauth/authorize?client_id=web&redirect_uri=https%3A%2F%2Fapp.example%2F..%2Fcb"),
                      ("/account#..", "/account#.."), ("/..", "/"), ("/a/..", "/")])
    func literalDotSegmentsAreRemoved(_ candidate: String, _ expected: String) {
        #expect(ReturnPath.validated(candidate) == expected)
    }

    @Test func otherOriginsStayRefused() {
        for attack in ["//evil.example", "/\\evil.example", "https://evil.example", "", "x", "/a\\b", "/\u{7F}"] {
            #expect(ReturnPath.validated(attack) == nil, "\(attack)")
        }
    }

    /// Under `https://app.example/auth` the redirect after signing in stays under `/auth`.
    @Test func aSignedInRedirectStaysUnderThePrefix() async throws {
        let gatehouse = try await OneOriginTests.make()
        let browser = try await OneOriginTests.signedUp(gatehouse)
        for (attack, expected) in [("/../x", "/auth/x"), ("/%2e%2e/x", "/auth/account"), ("/.%2E/admin", "/auth/account"),
                                   ("/a/..%2F..%2Fx", "/auth/account")] {
            let query = attack.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await browser.get("/auth/sign-in?return_to=" + query)
            #expect(response.status == 303 && response.headers["Location"] == expected, "\(attack): \(response.headers["Location"] ?? "none")")
        }
        // The sign-in form's return_to (a rendered form, submitted as a browser does) is checked the same way.
        let other = gatehouse.browser()
        let page = try await other.get("/auth/sign-in?return_to=" + "/%2e%2e/x".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(!page.text.contains("%2e%2e"), "a refused return path is not carried into the form")
        let signIn = try await other.submit("/auth/sign-in", to: "/auth/sign-in",
                                            [("email", "ada@example.com"), ("password", "correct horse battery"), ("return_to", "/../../x")])
        #expect(signIn.status == 303 && signIn.headers["Location"] == "/auth/x")
    }
}
