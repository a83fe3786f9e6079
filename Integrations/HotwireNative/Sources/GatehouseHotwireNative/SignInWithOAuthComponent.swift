// Apple platforms only (UIKit, WebKit, hotwire-native-ios); on Linux the package builds without this target.
#if canImport(UIKit) && canImport(HotwireNative)
import AuthenticationServices
import Foundation
import GatehouseClient
import GatehouseClientApple
import HotwireNative
import UIKit
import WebKit

/// Where this app's Gatehouse lives and how hand-offs come back. Pinned in the app, never taken from the page:
/// a page on another host cannot make the component open its own start URL.
public struct GatehouseHotwireConfiguration: Sendable {
    /// Gatehouse's public URL, e.g. `https://app.example/auth` (one origin) — `startPath`/`redeemPath` must be under it.
    public var gatehouseURL: URL
    /// The app's client id at Gatehouse (also sent in the user agent as `Gatehouse-App/<id>`).
    public var appID: String
    /// The registered private-use scheme (`myapp` for `myapp://auth-callback`), for iOS before 17.4.
    public var callbackScheme: String
    /// A claimed https callback registered for the app (`callback_urls`) and listed in
    /// apple-app-site-association (webcredentials): used on iOS 17.4+, where no "Continue to …?" page is needed.
    public var httpsCallback: URL?
    /// Providers the app signs in to with the platform SDK instead of the system browser: `"apple"` (F3, Apple's
    /// sheet) and `"google"` (needs `googleProvider`). A listed provider that cannot be used is an error the app
    /// sees (`GatehouseSignInError.nativeProviderUnavailable`), never a silent fallback to the system browser.
    public var nativeProviders: Set<String>
    /// The app's bridge to Google's SDK, for `"google"` in `nativeProviders`.
    public var googleProvider: (any GoogleIDTokenProvider)?
    public var prefersEphemeralWebBrowserSession: Bool

    public init(gatehouseURL: URL, appID: String, callbackScheme: String, httpsCallback: URL? = nil, nativeProviders: Set<String> = [],
                googleProvider: (any GoogleIDTokenProvider)? = nil, prefersEphemeralWebBrowserSession: Bool = false) {
        self.gatehouseURL = gatehouseURL; self.appID = appID; self.callbackScheme = callbackScheme; self.httpsCallback = httpsCallback
        self.nativeProviders = nativeProviders; self.googleProvider = googleProvider
        self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
    }

    /// Checks `nativeProviders` against what the app supplied; call it at start-up to fail early.
    public func validatedNativeProviders() throws(GatehouseSignInError) -> NativeProviders {
        try NativeProviders(nativeProviders, hasGoogleProvider: googleProvider != nil)
    }

    /// The user-agent prefix to set on `Hotwire.config.applicationUserAgentPrefix`.
    public var userAgentMarker: String { "Gatehouse-App/\(appID)" }
}

/// Hotwire Native bridge component `sign-in-with-oauth` (flows F2 and F3, docs/integrations/hotwire-native.md).
///
/// The web side (`gatehouse-bridge.js`) sends `click` with `startPath`, `redeemPath`, `provider` and, when the
/// sign-in continues a pending authorize, `continuePath`. This opens the system browser at `startPath` (or signs
/// in with Apple natively for `nativeProviders`), waits for the callback, and hands the token to the web view by
/// loading `redeemPath?token=…` — a same-host load, which Hotwire Native turns into a Turbo visit of Gatehouse's
/// redeem page; that page posts the verifier only the web view holds. Every failure is replied to the page as
/// `{"error", "error_description"}` (`cancelled` when the user closed the sheet) and handed to `onError` as a typed
/// `GatehouseSignInError`, so the app can show `userMessage` or act on the case (`accountExists`: offer linking).
///
///     Hotwire.config.applicationUserAgentPrefix = configuration.userAgentMarker
///     SignInWithOAuthComponent.configuration = configuration
///     SignInWithOAuthComponent.onError = { error in banner.show(error.userMessage) }
///     Hotwire.registerBridgeComponents([SignInWithOAuthComponent.self])
open class SignInWithOAuthComponent: BridgeComponent {
    override open nonisolated class var name: String { "sign-in-with-oauth" }

    @MainActor public static var configuration: GatehouseHotwireConfiguration?
    /// Every sign-in that did not complete, typed; the page gets the same code and message in the reply.
    @MainActor public static var onError: (@MainActor (GatehouseSignInError) -> Void)?

    private var presenter: WebAuthenticationSessionPresenter?
    private var appleSignIn: NativeAppleController?

    private struct ClickData: Decodable {
        let startPath: String
        let redeemPath: String
        let provider: String?
        let continuePath: String?
    }

    override open func onReceive(message: Message) {
        guard message.event == "click", let data: ClickData = message.data() else { return }
        guard let configuration = Self.configuration, let webView = delegate?.webView, let window = webView.window,
              let page = webView.url, Self.sameOrigin(page, configuration.gatehouseURL),
              let start = Self.resolve(data.startPath, configuration.gatehouseURL),
              let redeem = Self.resolve(data.redeemPath, configuration.gatehouseURL) else {
            fail(.misconfigured(code: "invalid_request", message: "This page may not start a sign-in."))
            return
        }
        let native: NativeProviders
        do { native = try configuration.validatedNativeProviders() } catch { fail(error); return }
        if native.isNative(data.provider) {
            signInNatively(data.provider ?? "", configuration, webView: webView, window: window, continuePath: data.continuePath)
            return
        }
        var startURL = start
        var callback = WebAuthenticationCallback.customScheme(configuration.callbackScheme)
        if #available(iOS 17.4, *), let https = configuration.httpsCallback, let host = https.host {
            startURL = start.appendingQuery([("callback", https.absoluteString)])
            callback = .https(host: host, path: https.path)
        }
        let presenter = WebAuthenticationSessionPresenter(anchor: window)
        self.presenter = presenter
        Task { @MainActor in
            defer { self.presenter = nil }
            do {
                let url = try await presenter.authenticate(url: startURL, callback: callback,
                                                           prefersEphemeralWebBrowserSession: configuration.prefersEphemeralWebBrowserSession)
                let token = try Handoff.parseCallback(url)
                webView.load(URLRequest(url: redeem.appendingQuery([("token", token)])))
            } catch let error as ASWebAuthenticationSessionError where error.code == .canceledLogin {
                fail(.cancelled)
            } catch {
                fail(GatehouseSignInError(error))
            }
        }
    }

    /// F3 and native Google: the platform's own sheet (Apple's, or Google's SDK through the app's
    /// `GoogleIDTokenProvider`), then `POST /native/apple` or `/native/google` (session), the cookie into the web
    /// view, then the pending authorize (or the page) in the web view — which ends in the product's session.
    private func signInNatively(_ provider: String, _ configuration: GatehouseHotwireConfiguration, webView: WKWebView, window: UIWindow,
                                continuePath: String?) {
        let controller = NativeAppleController(anchor: window)
        if provider == "apple" { appleSignIn = controller }
        Task { @MainActor in
            defer { self.appleSignIn = nil }
            do {
                let nonce = AppleNonce()
                let response: HTTPURLResponse
                if provider == "google" {
                    guard let google = configuration.googleProvider else { throw GatehouseSignInError.nativeProviderUnavailable(provider: "google") }
                    let idToken = try await google.googleIDToken(nonce: nonce.sha256Hex)
                    let request = NativeGoogleSignInRequest(idToken: idToken, rawNonce: nonce.raw, app: configuration.appID, response: .session)
                    (_, response) = try await request.send(base: configuration.gatehouseURL, transport: URLSessionTransport())
                } else {
                    let credential = try await controller.signIn(nonce: nonce)
                    let request = NativeAppleSignInRequest(identityToken: credential.identityToken, authorizationCode: credential.authorizationCode,
                                                           rawNonce: nonce.raw, givenName: credential.givenName, familyName: credential.familyName,
                                                           app: configuration.appID, response: .session)
                    (_, response) = try await request.send(base: configuration.gatehouseURL, transport: URLSessionTransport())
                }
                await WebViewCookieImporter.importCookies(from: response, into: webView.configuration.websiteDataStore.httpCookieStore)
                let target = continuePath.flatMap { Self.resolve($0, configuration.gatehouseURL) ?? URL(string: $0, relativeTo: webView.url) }
                webView.load(URLRequest(url: target ?? configuration.gatehouseURL))
            } catch let error as ASAuthorizationError where error.code == .canceled {
                fail(.cancelled)
            } catch let error as ASAuthorizationError where error.code == .unknown || error.code == .notHandled {
                fail(.nativeProviderUnavailable(provider: provider))
            } catch {
                fail(GatehouseSignInError(error))
            }
        }
    }

    /// Tells the page (the bridge reply, shown next to the form unless `cancelled`) and the app (`onError`).
    private func fail(_ error: GatehouseSignInError) {
        Self.onError?(error)
        Task { _ = try? await reply(to: "click", with: ["error": error.code, "error_description": error.userMessage]) }
    }

    /// `path` (absolute path or URL) resolved against Gatehouse's URL, accepted only on Gatehouse's origin and under
    /// its path, compared parsed (`IssuerScope`): a string prefix let `/authx` and `/auth/../x` through.
    static func resolve(_ path: String, _ gatehouse: URL) -> URL? {
        guard let url = URL(string: path, relativeTo: gatehouse)?.absoluteURL, IssuerScope.contains(url, within: gatehouse) else { return nil }
        return url
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool { IssuerScope.sameOrigin(a, b) }
}

/// Apple's sheet (`ASAuthorizationAppleIDProvider`) as one async call.
@MainActor
final class NativeAppleController: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    struct Credential { let identityToken: String, authorizationCode: String, givenName: String?, familyName: String? }

    private let anchor: ASPresentationAnchor
    private var continuation: CheckedContinuation<Credential, Error>?

    init(anchor: ASPresentationAnchor) { self.anchor = anchor }

    func signIn(nonce: AppleNonce) async throws -> Credential {
        let request = ASAuthorizationAppleIDProvider().createRequest()
        request.requestedScopes = [.fullName, .email]
        request.nonce = nonce.sha256Hex
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = self
        controller.presentationContextProvider = self
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            controller.performRequests()
        }
    }

    nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        MainActor.assumeIsolated {
            guard let apple = authorization.credential as? ASAuthorizationAppleIDCredential,
                  let token = apple.identityToken.flatMap({ String(data: $0, encoding: .utf8) }),
                  let code = apple.authorizationCode.flatMap({ String(data: $0, encoding: .utf8) }) else {
                continuation?.resume(throwing: ASAuthorizationError(.invalidResponse)); continuation = nil
                return
            }
            continuation?.resume(returning: Credential(identityToken: token, authorizationCode: code,
                                                       givenName: apple.fullName?.givenName, familyName: apple.fullName?.familyName))
            continuation = nil
        }
    }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: Error) {
        MainActor.assumeIsolated { continuation?.resume(throwing: error); continuation = nil }
    }
}

extension URL {
    /// This URL with `pairs` added to its query.
    func appendingQuery(_ pairs: [(String, String)]) -> URL {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return self }
        components.queryItems = (components.queryItems ?? []) + pairs.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.url ?? self
    }
}
#endif
