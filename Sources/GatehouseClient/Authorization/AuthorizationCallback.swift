import Foundation

/// A successful authorization response: the code, already checked against the request.
public struct AuthorizationCallback: Equatable, Sendable {
    /// The authorization code to exchange.
    public let code: String
    /// The `state`, equal to the request's.
    public let state: String
    /// Every parameter of the response, for provider extras (Apple's `user` JSON, for one).
    public let parameters: [String: String]

    /// Parses the redirect URL that ended `request`.
    ///
    /// Checks, in this order, because each makes the next one meaningful:
    /// 1. the URL is the redirect URI (same scheme, host, port, path);
    /// 2. parameters come from the query or the fragment, not both, none repeated;
    /// 3. `state` is present and equal to the request's (CSRF, RFC 6749 §10.12) — checked
    ///    before errors too, so a forged error cannot end someone else's sign-in;
    /// 4. `iss`, when present or required, equals the expected issuer (RFC 9207 mix-up defence);
    /// 5. a provider `error` becomes `AuthorizationCallbackError.provider(OAuthError)`;
    /// 6. `code` is present.
    public static func parse(_ url: URL, for request: AuthorizationRequest) throws -> AuthorizationCallback {
        guard matchesRedirect(url, request.redirectURI) else { throw AuthorizationCallbackError.redirectURIMismatch }
        let parameters = try responseParameters(url)

        guard let state = parameters["state"] else { throw AuthorizationCallbackError.stateMissing }
        guard constantTimeEquals(state, request.state) else { throw AuthorizationCallbackError.stateMismatch }

        if let issuer = parameters["iss"] {
            guard let expected = request.expectedIssuer, issuer == expected else {
                throw AuthorizationCallbackError.issuerMismatch(expected: request.expectedIssuer, actual: issuer)
            }
        } else if request.requiresIssuerParameter {
            throw AuthorizationCallbackError.issuerMissing
        }

        if let error = parameters["error"] {
            throw AuthorizationCallbackError.provider(OAuthError(
                code: OAuthErrorCode(rawValue: error),
                description: parameters["error_description"],
                uri: parameters["error_uri"].flatMap(URL.init(string:))
            ))
        }
        guard let code = parameters["code"], !code.isEmpty else { throw AuthorizationCallbackError.codeMissing }
        return AuthorizationCallback(code: code, state: state, parameters: parameters)
    }

    /// Reads the response from the query (`response_mode=query`) or the fragment
    /// (`response_mode=fragment`), refusing ambiguity and repeated parameters: a second
    /// `state` or `code` smuggled into the URL must not get a say.
    static func responseParameters(_ url: URL) throws -> [String: String] {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = FormBody.decode(components?.percentEncodedQuery ?? "")
        let fragment = FormBody.decode(components?.percentEncodedFragment ?? "")
        let responseKeys: Set<String> = ["code", "state", "error", "iss"]
        let queryHasResponse = query.contains { responseKeys.contains($0.0) }
        let fragmentHasResponse = fragment.contains { responseKeys.contains($0.0) }
        if queryHasResponse && fragmentHasResponse { throw AuthorizationCallbackError.ambiguousResponse }
        let pairs = fragmentHasResponse ? fragment : query

        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            guard parameters.updateValue(value, forKey: name) == nil else {
                throw name == "state" ? AuthorizationCallbackError.stateRepeated : AuthorizationCallbackError.parameterRepeated(name)
            }
        }
        return parameters
    }

    static func matchesRedirect(_ url: URL, _ redirect: URL) -> Bool {
        guard let actual = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let expected = URLComponents(url: redirect, resolvingAgainstBaseURL: false) else { return false }
        return actual.scheme?.lowercased() == expected.scheme?.lowercased()
            && actual.host?.lowercased() == expected.host?.lowercased()
            && actual.port == expected.port
            && normalizedPath(actual.path) == normalizedPath(expected.path)
    }

    private static func normalizedPath(_ path: String) -> String { path.isEmpty ? "/" : path }

    /// Comparison whose time does not depend on where the strings differ.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

/// Why a callback URL was rejected.
public enum AuthorizationCallbackError: Error, Equatable, Sendable {
    /// The URL is not the redirect URI the request used.
    case redirectURIMismatch
    /// Both query and fragment carry response parameters.
    case ambiguousResponse
    /// No `state` parameter.
    case stateMissing
    /// `state` differs from the one sent.
    case stateMismatch
    /// `state` appears more than once.
    case stateRepeated
    /// Another response parameter appears more than once.
    case parameterRepeated(String)
    /// `iss` differs from the expected issuer (or none was expected).
    case issuerMismatch(expected: String?, actual: String)
    /// The provider supports RFC 9207 but sent no `iss`.
    case issuerMissing
    /// Success response without a `code`.
    case codeMissing
    /// The provider answered with an error (`access_denied` when the user cancelled, …).
    case provider(OAuthError)
}
