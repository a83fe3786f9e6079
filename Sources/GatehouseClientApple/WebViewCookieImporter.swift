#if canImport(AuthenticationServices) && canImport(WebKit)
import Foundation
import GatehouseClient
import WebKit

/// Copies a response's `Set-Cookie`s into a web view's cookie store, e.g. the Gatehouse
/// session after native Sign in with Apple (`response: .session`), so the web view is signed in.
public enum WebViewCookieImporter {
    /// Sets every cookie of `response` in `store` (the default data store unless told otherwise).
    @MainActor
    public static func importCookies(from response: HTTPURLResponse, into store: WKHTTPCookieStore = WKWebsiteDataStore.default().httpCookieStore) async {
        for cookie in NativeAppleSignInRequest.cookies(from: response) {
            await store.setCookie(cookie)
        }
    }
}
#endif
