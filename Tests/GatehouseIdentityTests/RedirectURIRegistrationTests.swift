import GatehouseIdentity
import Testing

/// A registered redirect URI must mean the same host to Gatehouse and to a browser. Found by
/// fuzz/oauth-params: Foundation percent-encodes a backslash, so `http://evil.example\@127.0.0.1/cb`
/// registered as a loopback URI although a browser (where `\` ends the host) would go to evil.example.
@Suite struct RedirectURIRegistrationTests {
    @Test(arguments: ["http://evil.example\\@127.0.0.1/cb", "http://user@127.0.0.1/cb", "http://@[::1]/",
                      "http://127.0.0.1/c b", "https://app.example/cb\u{00E9}", "http://user:pw@127.0.0.1:5/cb"])
    func refused(_ uri: String) {
        #expect(RedirectURIRules.problem(with: uri, allowLocalhost: true) != nil)
    }

    @Test(arguments: ["http://127.0.0.1:8080/cb", "http://[::1]/cb?x=1", "com.example.app:/oauth2redirect",
                      "https://app.example/callback?a=b&c=%20"])
    func accepted(_ uri: String) {
        #expect(RedirectURIRules.problem(with: uri, allowLocalhost: false) == nil)
    }
}
