import Foundation

/// Which redirect URIs a client may register, and whether a presented one matches (DESIGN.md §4).
public enum RedirectURIRules {
    /// Why a redirect URI cannot be registered, or nil when it can.
    public static func problem(with uri: String, allowLocalhost: Bool) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            return "\(uri) is not an absolute URI"
        }
        guard components.fragment == nil else { return "\(uri) has a fragment" }
        // URLComponents and browsers must see the same host. Foundation percent-encodes what it cannot
        // parse, so `http://evil.example\@127.0.0.1/` read as loopback here while a browser (for which
        // `\` ends the host) goes to evil.example (found by fuzz/oauth-params). Only characters RFC 3986
        // allows unencoded, and no user information.
        guard uri.utf8.allSatisfy(isURICharacter) else { return "\(uri) holds characters a URI must percent-encode" }
        guard components.user == nil, components.password == nil else { return "\(uri) has user information" }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { return "\(uri) has no host" }
            return nil
        case "http":
            let host = components.host ?? ""
            if isLoopbackIP(host) { return nil }
            if host == "localhost" { return allowLocalhost ? nil : "http://localhost is only for clients flagged for development" }
            return "\(uri) uses plain http on a non-loopback host"
        default:
            // Private-use schemes for native apps must be reverse-DNS (RFC 8252 §7.1): com.example.app.
            guard scheme.contains("."), scheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression) != nil else {
                return "\(uri) uses a scheme that is neither https, loopback http, nor a reverse-DNS private-use scheme"
            }
            if ["javascript", "data", "file", "vbscript"].contains(scheme) { return "\(uri) uses a forbidden scheme" }
            return nil
        }
    }

    /// Whether `presented` matches one of `registered`: exact string comparison, except that a loopback
    /// IP redirect matches any port (RFC 8252 §7.3).
    public static func matches(_ presented: String, registered: [String]) -> Bool {
        if registered.contains(presented) { return true }
        guard let given = URLComponents(string: presented), given.scheme == "http", isLoopbackIP(given.host ?? "") else {
            return false
        }
        return registered.contains { candidate in
            guard var registeredParts = URLComponents(string: candidate), registeredParts.scheme == "http",
                  registeredParts.host == given.host else { return false }
            var presentedParts = given
            registeredParts.port = nil
            presentedParts.port = nil
            return registeredParts.string == presentedParts.string
        }
    }

    /// RFC 3986 unreserved, reserved and `%`.
    static func isURICharacter(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(b)
    }

    static func isLoopbackIP(_ host: String) -> Bool { host == "127.0.0.1" || host == "[::1]" || host == "::1" }
}
