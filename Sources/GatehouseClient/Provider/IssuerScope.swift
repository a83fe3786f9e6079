import Foundation

/// Whether a URL lies within an issuer's space (Gatehouse under `https://app.example/auth`): the same origin,
/// and the issuer's path segments as the URL's first segments — compared parsed, never as string prefixes,
/// which let `/authx/…` and `/auth/../x` (any page of the product) pass.
public enum IssuerScope {
    /// `url` is on `issuer`'s origin and under its path; a dot segment in any encoding refuses it.
    public static func contains(_ url: URL, within issuer: URL) -> Bool {
        guard sameOrigin(url, issuer), let inner = segments(of: url), let outer = segments(of: issuer) else { return false }
        return inner.count >= outer.count && Array(inner.prefix(outer.count)) == outer
    }

    /// Scheme and host compared case-insensitively, default ports made explicit.
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let schemeA = a.scheme?.lowercased(), let schemeB = b.scheme?.lowercased(), schemeA == schemeB,
              let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased(), hostA == hostB else { return false }
        return port(a, schemeA) == port(b, schemeB)
    }

    private static func port(_ url: URL, _ scheme: String) -> Int? {
        url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    /// The decoded path segments (a trailing slash ignored); nil when one is `.` or `..` once decoded, or holds
    /// a slash or backslash only an encoding could put there.
    static func segments(of url: URL) -> [String]? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        var result: [String] = []
        for raw in components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = raw.removingPercentEncoding, segment != ".", segment != "..",
                  !segment.contains("/"), !segment.contains("\\") else { return nil }
            result.append(segment)
        }
        return result
    }
}
