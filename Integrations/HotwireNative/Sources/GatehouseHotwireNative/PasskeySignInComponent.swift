// Apple platforms only (UIKit, WebKit, hotwire-native-ios); on Linux the package builds without this target.
#if canImport(UIKit) && canImport(HotwireNative)
import AuthenticationServices
import Foundation
import GatehouseClient
import GatehouseClientApple
import HotwireNative
import UIKit
import WebKit

/// Hotwire Native bridge component `passkey-sign-in`: the sign-in page's "Sign in with a passkey" button, run by the
/// platform instead of the web view (docs/integrations/hotwire-native.md, "Passkeys in the app").
///
/// The web side (`gatehouse-passkeys.js`) sends `click` with `optionsPath`, `finishPath` and `continuePath`. This asks
/// Gatehouse for the options (`POST /native/passkey/options`), shows the system passkey sheet
/// (`ASAuthorizationPlatformPublicKeyCredentialProvider`, origin `https://<rp id>`), posts the assertion to
/// `POST /native/passkey` with `response=session`, copies the session cookie into the web view's cookie store and loads
/// `continuePath` — the pending authorize, which ends in the product's session. Failures are replied to the page
/// (`cancelled` when the user closed the sheet) and given to `onError`.
///
/// Needs the Associated Domains entitlement `webcredentials:<rp id>` and the app's `TEAMID.bundle.id` in its Gatehouse
/// registration's `apple_app_ids`. Configured by ``SignInWithOAuthComponent/configuration``:
///
///     Hotwire.registerBridgeComponents([SignInWithOAuthComponent.self, PasskeySignInComponent.self])
@available(iOS 16.0, *)
open class PasskeySignInComponent: BridgeComponent {
    override open nonisolated class var name: String { "passkey-sign-in" }

    @MainActor public static var onError: (@MainActor (GatehouseSignInError) -> Void)?

    private var provider: PlatformPasskeyAssertionProvider?

    private struct ClickData: Decodable {
        let optionsPath: String
        let finishPath: String
        let continuePath: String?
    }

    override open func onReceive(message: Message) {
        guard message.event == "click", let data: ClickData = message.data() else { return }
        // The endpoints are Gatehouse's own, pinned in the app; the page may only name paths under it.
        guard let configuration = SignInWithOAuthComponent.configuration, let webView = delegate?.webView, let window = webView.window,
              let page = webView.url, SignInWithOAuthComponent.sameOrigin(page, configuration.gatehouseURL),
              SignInWithOAuthComponent.resolve(data.optionsPath, configuration.gatehouseURL) != nil,
              SignInWithOAuthComponent.resolve(data.finishPath, configuration.gatehouseURL) != nil else {
            fail(.misconfigured(code: "invalid_request", message: "This page may not start a sign-in."))
            return
        }
        let provider = PlatformPasskeyAssertionProvider(anchor: window)
        self.provider = provider
        Task { @MainActor in
            defer { self.provider = nil }
            do {
                let client = NativePasskeySignInClient(base: configuration.gatehouseURL, app: configuration.appID)
                let (_, response) = try await client.signIn(with: provider, response: .session)
                await WebViewCookieImporter.importCookies(from: response, into: webView.configuration.websiteDataStore.httpCookieStore)
                let target = data.continuePath.flatMap { SignInWithOAuthComponent.resolve($0, configuration.gatehouseURL) }
                webView.load(URLRequest(url: target ?? configuration.gatehouseURL))
            } catch {
                fail(GatehouseSignInError(error))
            }
        }
    }

    private func fail(_ error: GatehouseSignInError) {
        Self.onError?(error)
        Task { _ = try? await reply(to: "click", with: ["error": error.code, "error_description": error.userMessage]) }
    }
}
#endif
