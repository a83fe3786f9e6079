import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the app's Google SDK gives back: Google's ID token for the nonce the component asked for.
///
/// The app brings Google's SDK (GoogleSignIn on iOS); Gatehouse's component and SDK only need this one call, so they
/// do not depend on it. Put `nonce` (the SHA-256 hex of the raw nonce) on Google's request; throw
/// `GatehouseSignInError.cancelled` when the user closes Google's sheet.
public protocol GoogleIDTokenProvider: Sendable {
    /// Presents Google's sign-in and returns its `idToken.tokenString`.
    func googleIDToken(nonce: String) async throws -> String
}

/// `POST {base}/native/google`: hands the ID token of Google's native SDK to Gatehouse, with the raw nonce whose
/// SHA-256 hex was on Google's request. Answers like `/native/apple`: a session cookie (`.session`) or tokens.
public struct NativeGoogleSignInRequest: Sendable, Equatable {
    public var idToken: String
    public var rawNonce: String
    /// The app's client id at Gatehouse (its registered `google_client_ids` are the accepted `aud`).
    public var app: String
    public var response: NativeAppleSignInRequest.ResponseKind

    public init(idToken: String, rawNonce: String, app: String, response: NativeAppleSignInRequest.ResponseKind) {
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.app = app
        self.response = response
    }

    public func urlRequest(base: URL) throws -> URLRequest {
        try NativeSignInPost.urlRequest(base: base, path: "/native/google",
                                        body: ["id_token": idToken, "raw_nonce": rawNonce, "app": app, "response": response.rawValue])
    }

    /// Sends the request; a refusal throws `GatehouseSignInError` (`account_exists` as `.accountExists`, …).
    public func send(base: URL, transport: any HTTPTransport) async throws -> (TokenResponse?, HTTPURLResponse) {
        try await NativeSignInPost.send(try urlRequest(base: base), answer: response, transport: transport,
                                        failure: { GatehouseSignInError($0) })
    }
}

/// The native sign-ins an app offers, checked before any is used: a provider listed without its SDK bridge is an
/// error the app sees (`nativeProviderUnavailable`), never a silent trip through the system browser.
public struct NativeProviders: Sendable, Equatable {
    /// The providers Gatehouse can sign in to natively.
    public static let supported: Set<String> = ["apple", "google"]

    public let names: Set<String>

    /// Throws `.misconfigured` for a name Gatehouse has no native sign-in for, and `.nativeProviderUnavailable`
    /// for Google listed without a `GoogleIDTokenProvider`.
    public init(_ names: Set<String>, hasGoogleProvider: Bool) throws(GatehouseSignInError) {
        if let unknown = names.subtracting(Self.supported).sorted().first {
            throw .misconfigured(code: "unsupported_provider", message: "\(unknown) has no native sign-in at Gatehouse (apple, google).")
        }
        if names.contains("google"), !hasGoogleProvider { throw .nativeProviderUnavailable(provider: "google") }
        self.names = names
    }

    /// True when `provider` signs in natively; false means the system browser (flow F2).
    public func isNative(_ provider: String?) -> Bool { provider.map(names.contains) ?? false }
}
