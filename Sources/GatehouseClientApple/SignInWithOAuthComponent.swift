#if canImport(AuthenticationServices) && canImport(WebKit) && canImport(HotwireNative)
import AuthenticationServices
import Foundation
import GatehouseClient
import HotwireNative
import UIKit

/// Hotwire Native bridge component `sign-in-with-oauth` (DESIGN F2).
///
/// The web page sends `click` with `startPath` (Gatehouse's start page, carrying the hand-off
/// challenge) and `redeemPath` (carrying the verifier the web side holds). This opens the
/// system browser at `startPath`, waits for `{callbackScheme}://…?token=…`, and loads
/// `redeemPath&token=…` in the web view, which swaps the token for a session cookie.
///
/// Register it with `Hotwire.registerBridgeComponents([SignInWithOAuthComponent.self])` after
/// setting `SignInWithOAuthComponent.callbackScheme`.
open class SignInWithOAuthComponent: BridgeComponent {
    override open nonisolated class var name: String { "sign-in-with-oauth" }

    /// The app's registered hand-off scheme (`myapp` for `myapp://auth-callback`).
    public static var callbackScheme = "myapp"
    /// Share no cookies with Safari; usually `false` so provider sessions are reused.
    public static var prefersEphemeralWebBrowserSession = false

    private var presenter: WebAuthenticationSessionPresenter?

    private struct ClickData: Decodable {
        let startPath: String
        let redeemPath: String
    }

    override open func onReceive(message: Message) {
        guard message.event == "click", let data: ClickData = message.data() else { return }
        guard let webView = delegate?.webView, let page = webView.url,
              let startURL = URL(string: data.startPath, relativeTo: page)?.absoluteURL,
              startURL.host == page.host, let window = webView.window else { return }
        let presenter = WebAuthenticationSessionPresenter(anchor: window)
        self.presenter = presenter
        Task { @MainActor in
            defer { self.presenter = nil }
            do {
                let callback = try await presenter.authenticate(
                    url: startURL, callback: .customScheme(Self.callbackScheme),
                    prefersEphemeralWebBrowserSession: Self.prefersEphemeralWebBrowserSession
                )
                let token = try HandOff.parseCallback(callback)
                guard let redeem = HandOff.redeemURL(base: page, redeemPath: data.redeemPath, token: token) else { return }
                webView.load(URLRequest(url: redeem))
            } catch {
                // Cancelled or refused: reply so the page can show its own message.
                _ = try? await reply(to: "click", with: ["error": String(describing: error)])
            }
        }
    }
}
#endif
