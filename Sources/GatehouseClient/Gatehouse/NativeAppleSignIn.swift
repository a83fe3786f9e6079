import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A raw nonce for native Sign in with Apple and the SHA-256 hex Apple wants on its request.
/// Apple puts the hash in the identity token; Gatehouse gets the raw value and recomputes it,
/// so a replayed identity token without its raw nonce is useless.
public struct AppleNonce: Sendable, Equatable {
    /// Send this to Gatehouse (`raw_nonce`).
    public let raw: String
    /// Put this on `ASAuthorizationAppleIDRequest.nonce`.
    public let sha256Hex: String

    /// A fresh 256-bit nonce.
    public init() { self.init(raw: RandomString.base64URL(byteCount: 32)) }

    public init(raw: String) {
        self.raw = raw
        self.sha256Hex = SHA256.hexDigest(raw)
    }
}

/// `POST {base}/native/apple`: hands Apple's credential to Gatehouse (DESIGN F3).
public struct NativeAppleSignInRequest: Sendable, Equatable {
    /// What Gatehouse answers with.
    public enum ResponseKind: String, Sendable {
        /// A `Set-Cookie` session: copy it into the web view's cookie store (Hotwire apps).
        case session
        /// OAuth tokens (`TokenResponse` JSON) for a token-based app.
        case tokens
    }

    /// `ASAuthorizationAppleIDCredential.identityToken` as a UTF-8 string.
    public var identityToken: String
    /// `authorizationCode` as a UTF-8 string.
    public var authorizationCode: String
    public var rawNonce: String
    /// Apple only sends the name on the first authorization: pass it along that once.
    public var givenName: String?
    public var familyName: String?
    /// The app's identifier as registered with Gatehouse (it picks the expected `aud`).
    public var app: String
    public var response: ResponseKind

    public init(identityToken: String, authorizationCode: String, rawNonce: String, givenName: String? = nil, familyName: String? = nil, app: String, response: ResponseKind) {
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.rawNonce = rawNonce
        self.givenName = givenName
        self.familyName = familyName
        self.app = app
        self.response = response
    }

    /// The JSON POST to send (through `URLSessionTransport`, or with `URLSession` directly when
    /// you want the cookie in `HTTPCookieStorage`).
    public func urlRequest(base: URL) throws -> URLRequest {
        try NativeSignInPost.urlRequest(base: base, path: "/native/apple", body: Body(
            identity_token: identityToken, authorization_code: authorizationCode, raw_nonce: rawNonce,
            given_name: givenName, family_name: familyName, app: app, response: response.rawValue
        ))
    }

    /// Sends the request; for `.tokens` returns the tokens, for `.session` returns `nil` (the
    /// cookies are in the returned response, see `cookies(from:)`).
    public func send(base: URL, transport: any HTTPTransport) async throws -> (TokenResponse?, HTTPURLResponse) {
        try await NativeSignInPost.send(try urlRequest(base: base), answer: response, transport: transport, failure: { $0 })
    }

    /// The cookies a response sets, ready for `WKHTTPCookieStore.setCookie`.
    public static func cookies(from response: HTTPURLResponse) -> [HTTPCookie] {
        guard let url = response.url else { return [] }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return HTTPCookie.cookies(withResponseHeaderFields: headers, for: url)
    }

    private struct Body: Encodable {
        let identity_token: String
        let authorization_code: String
        let raw_nonce: String
        let given_name: String?
        let family_name: String?
        let app: String
        let response: String
    }
}
