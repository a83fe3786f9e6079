/// Sets the security headers every response needs unless the handler chose its own:
/// a CSP that forbids framing, `nosniff`, no referrer, and HSTS when the public URL is https.
public struct SecurityHeadersMiddleware: Middleware {
    public static let defaultContentSecurityPolicy =
        "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

    let contentSecurityPolicy: String
    let strictTransportSecurity: String?

    /// - Parameter https: whether the public URL is https (HSTS is only meaningful, and only safe, then).
    public init(https: Bool, contentSecurityPolicy: String = Self.defaultContentSecurityPolicy) {
        self.contentSecurityPolicy = contentSecurityPolicy
        self.strictTransportSecurity = https ? "max-age=63072000; includeSubDomains" : nil
    }

    public func finish(_ request: Request, _ response: inout Response) {
        response.headers.setIfAbsent("Content-Security-Policy", contentSecurityPolicy)
        response.headers.setIfAbsent("X-Content-Type-Options", "nosniff")
        response.headers.setIfAbsent("Referrer-Policy", "no-referrer")
        response.headers.setIfAbsent("X-Frame-Options", "DENY")
        if let strictTransportSecurity {
            response.headers.setIfAbsent("Strict-Transport-Security", strictTransportSecurity)
        }
    }
}
