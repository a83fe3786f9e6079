#if canImport(AuthenticationServices) && canImport(WebKit)
import AuthenticationServices
import Foundation
import GatehouseClient

/// Where `ASWebAuthenticationSession` should deliver the callback.
public enum WebAuthenticationCallback: Sendable, Equatable {
    /// A private-use scheme, e.g. `"myapp"` for `myapp://auth-callback`.
    case customScheme(String)
    /// A universal-link style https callback (iOS 17.4+/macOS 14.4+); falls back to nothing
    /// on older systems, so pair it with an associated-domains entry.
    case https(host: String, path: String)
}

/// Opens a URL in the system browser sheet and returns the callback URL (RFC 8252: never an
/// embedded web view, which Google refuses with `disallowed_useragent`).
@MainActor
public final class WebAuthenticationSessionPresenter: NSObject, ASWebAuthenticationPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    private var session: ASWebAuthenticationSession?

    /// - Parameter anchor: the window to present over (`view.window`).
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Presents `url` and returns the URL the provider redirected to.
    ///
    /// - Parameter prefersEphemeralWebBrowserSession: `true` shares no cookies with Safari
    ///   (no "wants to use … to sign in" prompt, but no single sign-on either).
    public func authenticate(url: URL, callback: WebAuthenticationCallback, prefersEphemeralWebBrowserSession: Bool = false) async throws -> URL {
        try await withCheckedThrowingContinuation { continuation in
            let completion: ASWebAuthenticationSession.CompletionHandler = { callbackURL, error in
                if let callbackURL { continuation.resume(returning: callbackURL) }
                else { continuation.resume(throwing: error ?? ASWebAuthenticationSessionError(.canceledLogin)) }
            }
            let session: ASWebAuthenticationSession
            switch callback {
            case .customScheme(let scheme):
                session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
            case .https(let host, let path):
                if #available(iOS 17.4, macOS 14.4, *) {
                    session = ASWebAuthenticationSession(url: url, callback: .https(host: host, path: path), completionHandler: completion)
                } else {
                    continuation.resume(throwing: ASWebAuthenticationSessionError(.presentationContextInvalid))
                    return
                }
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            self.session = session
            if !session.start() {
                continuation.resume(throwing: ASWebAuthenticationSessionError(.presentationContextNotProvided))
            }
        }
    }

    /// Signs in with code + PKCE through `client`: opens the request in the browser sheet and
    /// finishes the exchange in `authState`.
    public func signIn(authState: AuthState, scopes: [String], callback: WebAuthenticationCallback, prefersEphemeralWebBrowserSession: Bool = false) async throws -> SignInResult {
        let request = authState.client.authorizationRequest(scopes: scopes)
        let callbackURL = try await authenticate(url: request.url, callback: callback, prefersEphemeralWebBrowserSession: prefersEphemeralWebBrowserSession)
        return try await authState.signIn(callbackURL: callbackURL, request: request)
    }

    public nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }
}
#endif
