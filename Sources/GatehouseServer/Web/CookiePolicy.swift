import Foundation
import GatehouseHTTP

/// Names and attributes of Gatehouse's cookies. Over https they carry the `__Host-` prefix and `Secure`;
/// on a plain-http loopback URL (development) browsers would drop both, so neither is used there.
public struct CookiePolicy: Sendable {
    public let secure: Bool
    public let sessionCookie: String
    public let csrfCookie: String
    public let sessionMaxAge: Int
    /// `scheme://host[:port]` of the public URL, as browsers write it in `Origin`.
    public let publicOrigin: String

    public init(publicURL: URL, sessionMaxAge: TimeInterval) {
        publicOrigin = NativeAppleRoutes.origin(of: publicURL)
        secure = publicURL.scheme == "https"
        sessionCookie = secure ? "__Host-gatehouse_session" : "gatehouse_session"
        csrfCookie = secure ? "__Host-gatehouse_csrf" : "gatehouse_csrf"
        self.sessionMaxAge = Int(sessionMaxAge)
    }

    public func sessionCookie(token: String) -> SetCookie {
        // Values are base64url tokens we minted, so construction cannot fail.
        try! SetCookie(name: sessionCookie, value: token, maxAge: sessionMaxAge, path: "/", secure: secure,
                       httpOnly: true, sameSite: .lax)
    }

    public var clearSession: SetCookie { try! SetCookie.expiring(sessionCookie, secure: secure) }

    public func csrfCookie(value: String) -> SetCookie {
        try! SetCookie(name: csrfCookie, value: value, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
