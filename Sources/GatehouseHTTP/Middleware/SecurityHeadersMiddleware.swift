/// Sets the security headers every response needs unless the handler chose its own:
/// a CSP that forbids framing, `nosniff`, no referrer, and HSTS when the public URL is https.
public struct SecurityHeadersMiddleware: Middleware {
    public static let defaultContentSecurityPolicy =
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    let contentSecurityPolicy: @Sendable () -> String
    let strictTransportSecurity: String?

    /// - Parameters:
    ///   - https: whether the public URL is https (HSTS is only meaningful, and only safe, then).
    ///   - includeSubdomains: whether HSTS covers the host's subdomains too (not for a Gatehouse under a path of
    ///     the product's host: it would bind the product's other hosts).
    public init(https: Bool, includeSubdomains: Bool = true, contentSecurityPolicy: String = Self.defaultContentSecurityPolicy) {
        self.init(https: https, includeSubdomains: includeSubdomains, contentSecurityPolicy: { contentSecurityPolicy })
    }

    /// With a policy built per response (its sources can change while the server runs).
    public init(https: Bool, includeSubdomains: Bool = true, contentSecurityPolicy: @escaping @Sendable () -> String) {
        self.contentSecurityPolicy = contentSecurityPolicy
        self.strictTransportSecurity = https ? "max-age=63072000" + (includeSubdomains ? "; includeSubDomains" : "") : nil
    }

    public func finish(_ request: Request, _ response: inout Response) {
        // One pass over the response's fields finds which defaults the handler already set, instead of
        // one scan per header; the defaults are then appended in the same order as before.
        var hasCSP = false, hasNosniff = false, hasReferrer = false, hasFrame = false, hasHSTS = false
        for (name, _) in response.headers {
            if name.caseInsensitiveEquals("Content-Security-Policy") { hasCSP = true }
            else if name.caseInsensitiveEquals("X-Content-Type-Options") { hasNosniff = true }
            else if name.caseInsensitiveEquals("Referrer-Policy") { hasReferrer = true }
            else if name.caseInsensitiveEquals("X-Frame-Options") { hasFrame = true }
            else if name.caseInsensitiveEquals("Strict-Transport-Security") { hasHSTS = true }
        }
        if !hasCSP { response.headers.add("Content-Security-Policy", contentSecurityPolicy()) }
        if !hasNosniff { response.headers.add("X-Content-Type-Options", "nosniff") }
        if !hasReferrer { response.headers.add("Referrer-Policy", "no-referrer") }
        if !hasFrame { response.headers.add("X-Frame-Options", "DENY") }
        if let strictTransportSecurity, !hasHSTS {
            response.headers.add("Strict-Transport-Security", strictTransportSecurity)
        }
    }
}
