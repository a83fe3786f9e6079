import Foundation

/// Gatehouse's native hand-off (DESIGN F2): the system browser signs in, Gatehouse redirects to
/// `myapp://auth-callback?token=…`, and the app's web view redeems the token for a session
/// cookie at `{base}/native/redeem?token=…&verifier=…`.
///
/// The token is single-use, short-lived, and bound to the S256 challenge of a verifier only
/// the web view (or the app) holds, so a custom-scheme URL hijacked by another app is useless.
public enum Handoff {
    /// A hand-off verifier and its S256 challenge: the challenge goes on the start URL, the
    /// verifier on the redeem URL.
    public typealias Verifier = PKCE

    /// Generates a fresh verifier (43 characters, 256 bits) and its challenge.
    public static func makeVerifier() -> Verifier { PKCE() }

    /// Reads the token from the callback, or throws the error Gatehouse put there.
    ///
    /// - Parameter expected: the registered callback (e.g. `myapp://auth-callback`); when given,
    ///   a URL with another scheme, host or path is rejected.
    public static func parseCallback(_ url: URL, expected: URL? = nil) throws -> String {
        if let expected, !AuthorizationCallback.matchesRedirect(url, expected) { throw HandoffError.unexpectedCallback }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var parameters: [String: String] = [:]
        for (name, value) in FormBody.decode(components?.percentEncodedQuery ?? "") {
            guard parameters.updateValue(value, forKey: name) == nil else { throw HandoffError.parameterRepeated(name) }
        }
        if let error = parameters["error"] {
            throw HandoffError.provider(OAuthError(
                code: OAuthErrorCode(rawValue: error),
                description: parameters["error_description"],
                uri: parameters["error_uri"].flatMap(URL.init(string:))
            ))
        }
        guard let token = parameters["token"], !token.isEmpty else { throw HandoffError.tokenMissing }
        return token
    }

    /// `{base}/native/redeem?token=…&verifier=…`. Gatehouse's redeem no longer reads a verifier from the URL (a link
    /// must never sign anyone in): the redeem page posts the verifier the web view's bridge script keeps. Use
    /// `redeemURL(base:redeemPath:token:)` with the page's `redeemPath`.
    public static func redeemURL(base: URL, token: String, verifier: String) -> URL {
        base.appendingAbsolutePath("/native/redeem").appendingQuery([("token", token), ("verifier", verifier)])
    }

    /// `redeemPath` (as the web page sent it, possibly carrying its own verifier) resolved
    /// against `base`, with `token` appended.
    public static func redeemURL(base: URL, redeemPath: String, token: String) -> URL? {
        guard let url = URL(string: redeemPath, relativeTo: base)?.absoluteURL,
              url.scheme == base.scheme, url.host == base.host, url.port == base.port else { return nil }
        return url.appendingQuery([("token", token)])
    }
}

/// Why a hand-off callback was rejected.
public enum HandoffError: Error, Equatable, Sendable {
    /// Not the registered callback URL.
    case unexpectedCallback
    /// No `token` and no `error`.
    case tokenMissing
    /// A parameter appears twice.
    case parameterRepeated(String)
    /// Gatehouse reported an error (the user cancelled, the provider refused, …).
    case provider(OAuthError)
}

/// The names before the one spelling: kept so apps built against them still compile.
@available(*, deprecated, renamed: "Handoff")
public typealias HandOff = Handoff
@available(*, deprecated, renamed: "HandoffError")
public typealias HandOffError = HandoffError
