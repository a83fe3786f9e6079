import Foundation

/// OpenID Connect RP-Initiated Logout 1.0: the URL that ends the user's session at the provider.
///
/// Open it in the same browser that signed in (on iOS, the `ASWebAuthenticationSession` used for
/// sign-in, without `prefersEphemeralWebBrowserSession`), because the provider's session is a cookie
/// there; the provider redirects to `postLogoutRedirectURI` (which the client must have registered)
/// with `state` echoed back.
public struct EndSessionRequest: Sendable, Equatable {
    public let url: URL
    public let postLogoutRedirectURI: URL?
    public let state: String?

    /// Builds the request from the discovered `end_session_endpoint`.
    ///
    /// - Parameters:
    ///   - idTokenHint: the ID token of the session to end; lets the provider end it without asking.
    ///   - postLogoutRedirectURI: where to come back; with it, `client_id` is sent too (needed when the
    ///     hint is absent or expired).
    ///   - state: echoed on the redirect; a random value is made when nil and a redirect is asked for.
    public static func make(metadata: ProviderMetadata, clientID: String, idTokenHint: String?,
                            postLogoutRedirectURI: URL?, state: String? = nil) throws -> EndSessionRequest {
        guard let endpoint = metadata.endSessionEndpoint,
              var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw ClientSetupError.endpointMissing("end_session_endpoint")
        }
        var items = components.queryItems ?? []
        if let idTokenHint { items.append(URLQueryItem(name: "id_token_hint", value: idTokenHint)) }
        var sentState: String?
        if let postLogoutRedirectURI {
            sentState = state ?? RandomString.base64URL(byteCount: 16)
            items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString))
            items.append(URLQueryItem(name: "client_id", value: clientID))
            items.append(URLQueryItem(name: "state", value: sentState))
        }
        components.queryItems = items.isEmpty ? nil : items
        // '+' is left alone by URLComponents but read as a space by servers: escape it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw ClientSetupError.endpointMissing("end_session_endpoint") }
        return EndSessionRequest(url: url, postLogoutRedirectURI: postLogoutRedirectURI, state: sentState)
    }

    /// Checks the provider's redirect back: it must go to the registered URI and carry our `state`.
    public func validateCallback(_ callback: URL) throws {
        guard let expected = postLogoutRedirectURI else { return }
        let received = URLComponents(url: callback, resolvingAgainstBaseURL: false)
        var base = received
        base?.query = nil
        guard base?.url?.absoluteString == expected.absoluteString else { throw AuthorizationCallbackError.redirectURIMismatch }
        let returned = received?.queryItems?.first { $0.name == "state" }?.value
        guard let returned else { throw AuthorizationCallbackError.stateMissing }
        guard let state, returned == state else { throw AuthorizationCallbackError.stateMismatch }
    }
}
