import Foundation
import GatehouseClient
import Testing

/// The SDK's "is this Gatehouse's URL" check compares parsed URLs, not string prefixes (second review, item 11).
@Suite struct IssuerScopeTests {
    static let issuer = URL(string: "https://app.example/auth")!

    @Test(arguments: ["https://app.example/auth", "https://app.example/auth/", "https://app.example/auth/native/redeem?token=x",
                      "https://APP.example:443/auth/sign-in", "https://app.example/auth/a%20b"])
    func urlsUnderTheIssuerAreInside(_ text: String) {
        #expect(IssuerScope.contains(URL(string: text)!, within: Self.issuer))
    }

    @Test(arguments: ["https://app.example/authx/sign-in", "https://app.example/auth/../admin", "https://app.example/auth/%2e%2e/admin",
                      "https://app.example/auth/.%2E/admin", "https://app.example/auth/a%2f..%2f..%2fadmin", "https://app.example/",
                      "http://app.example/auth/sign-in", "https://app.example:8443/auth/sign-in", "https://app.example.evil/auth/",
                      "https://evil.example/auth/sign-in", "https://app.example/other/auth/sign-in"])
    func otherPathsAndOriginsAreOutside(_ text: String) {
        #expect(!IssuerScope.contains(URL(string: text)!, within: Self.issuer), "\(text)")
    }

    @Test func aRootIssuerContainsItsWholeOrigin() {
        let root = URL(string: "https://id.example")!
        #expect(IssuerScope.contains(URL(string: "https://id.example/sign-in")!, within: root))
        #expect(!IssuerScope.contains(URL(string: "https://id.example/../x")!, within: root))
        #expect(!IssuerScope.contains(URL(string: "https://id.example.com/sign-in")!, within: root))
    }
}
