/// Authorization requests passed by value (`request`, a JWT) or by reference (`request_uri`) are not supported,
/// and say so with OIDC Core §6's own codes rather than being silently ignored (the client would believe the
/// signed request's parameters were applied). A pushed request (RFC 9126) is not refused here: its
/// `request_uri` is Gatehouse's own `urn:ietf:params:oauth:request_uri:` reference, for the PAR handler.
public enum RequestObjectRefusal {
    /// The prefix of `request_uri` values that name a pushed authorization request.
    public static let pushedRequestPrefix = "urn:ietf:params:oauth:request_uri:"

    /// The error for an authorization request that uses a request object, or nil.
    public static func refusal(_ parameters: [String: [String]]) -> OAuthError? {
        if parameters["request"] != nil {
            return OAuthError(.requestNotSupported, "Request objects (the request parameter) are not supported.")
        }
        if let uris = parameters["request_uri"], !uris.allSatisfy({ $0.hasPrefix(pushedRequestPrefix) }) {
            return OAuthError(.requestURINotSupported, "request_uri is supported only for pushed authorization requests.")
        }
        return nil
    }
}
