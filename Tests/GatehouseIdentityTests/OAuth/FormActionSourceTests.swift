import GatehouseIdentity
import Testing

/// Which CSP source lets a redirect chain end at a registered URI (and that nothing else reaches the header).
@Suite struct FormActionSourceTests {
    static let cases: [(String, String?)] = [
        ("https://app.example/cb?x=1", "https://app.example"),
        ("https://App.Example:8443/cb", "https://app.example:8443"),
        ("http://127.0.0.1/callback", "http://127.0.0.1:*"),
        ("http://[::1]:4000/callback", "http://[::1]:*"),
        ("com.example.app:/oauth/callback", "com.example.app:"),
        ("https://app.example;script-src *", nil),
        ("bad scheme:/x", nil),
        ("/relative", nil),
    ]

    @Test(arguments: cases)
    func source(_ item: (String, String?)) {
        #expect(FormActionSource.of(item.0) == item.1)
    }
}
