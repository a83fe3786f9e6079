import Foundation
import GatehouseHTTP

/// Names and attributes of Gatehouse's cookies. Every name has the `gatehouse_` stem, so they never collide
/// with the product app's own cookies when both share an origin.
///
/// - https at the host root: `__Host-gatehouse_…`, `Path=/`, `Secure` (the strongest binding to the host).
/// - https under a path (`https://app.example/auth`, the one-origin deployment): `__Host-` requires `Path=/`, so
///   `__Secure-gatehouse_…` with `Path=/auth` and `Secure`: the browser sends them only to Gatehouse's paths and
///   never to the app's.
/// - plain-http loopback (development): browsers would drop both prefixes and `Secure`, so neither is used.
public struct CookiePolicy: Sendable {
    public let secure: Bool
    public let sessionCookie: String
    public let csrfCookie: String
    public let sessionMaxAge: Int
    /// The `Path` of every Gatehouse cookie: `/`, or the base path of the public URL.
    public let path: String
    /// `scheme://host[:port]` of the public URL, as browsers write it in `Origin`.
    public let publicOrigin: String

    public init(publicURL: URL, sessionMaxAge: TimeInterval) {
        publicOrigin = NativeSignInHTTP.origin(of: publicURL)
        secure = publicURL.scheme == "https"
        path = (BasePath(publicURL.path) ?? .root).cookiePath
        let prefix = !secure ? "" : path == "/" ? "__Host-" : "__Secure-"
        sessionCookie = prefix + "gatehouse_session"
        csrfCookie = prefix + "gatehouse_csrf"
        self.sessionMaxAge = Int(sessionMaxAge)
    }

    /// The full name for a cookie stem (`flow` → `__Host-gatehouse_flow` over https at the root).
    public func name(_ stem: String) -> String {
        (!secure ? "" : path == "/" ? "__Host-" : "__Secure-") + "gatehouse_" + stem
    }

    public func sessionCookie(token: String) -> SetCookie {
        // Values are base64url tokens we minted, so construction cannot fail.
        try! SetCookie(name: sessionCookie, value: token, maxAge: sessionMaxAge, path: path, secure: secure,
                       httpOnly: true, sameSite: .lax)
    }

    /// The known-device cookie (``KnownDevices``): a year, outliving sessions and sign-outs on purpose.
    public func deviceCookie(value: String) -> SetCookie {
        try! SetCookie(name: name("device"), value: value, maxAge: 365 * 86_400, path: path, secure: secure,
                       httpOnly: true, sameSite: .lax)
    }

    public var clearSession: SetCookie { try! SetCookie.expiring(sessionCookie, path: path, secure: secure) }

    public func csrfCookie(value: String) -> SetCookie {
        try! SetCookie(name: csrfCookie, value: value, path: path, secure: secure, httpOnly: true, sameSite: .lax)
    }
}
