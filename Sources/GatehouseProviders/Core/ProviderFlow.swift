import Foundation
import GatehouseCrypto
import GatehouseIdentity

/// An upstream sign-in in progress, kept server-side under the hash of its `state` (single-use,
/// ≤ 10 minutes). Encoded as the payload of a `FlowState` row.
public struct ProviderFlow: Sendable, Codable, Equatable {
    /// Where the sign-in ends: in this browser (`web`) or handed to a native app (`native`, F2).
    public enum Platform: String, Sendable, Codable { case web, native }

    /// What a successful callback is for.
    public enum Intent: Sendable, Codable, Equatable {
        /// Sign in (or sign up) with this provider.
        case signIn
        /// Add this provider to the account of a signed-in user.
        case link(userId: String)
    }

    /// The provider's configured id.
    public var provider: String
    public var intent: Intent
    public var platform: Platform
    /// The raw OIDC `nonce` (sent as is on the web).
    public var nonce: String
    /// The PKCE code verifier (S256 challenge sent on the authorize URL).
    public var codeVerifier: String
    /// The exact redirect URI sent on the authorize request (the token request must repeat it).
    public var redirectURI: String
    /// A same-origin path to continue to — for an OAuth client this is the pending
    /// `/oauth/authorize?...` request the user was sent to sign in for.
    public var returnTo: String?
    /// SHA-256 (hex) of the random browser-binding cookie set when the flow started; the finish step
    /// runs only in that browser, so a flow started by someone else cannot be completed in yours.
    public var browserBinding: String?
    /// For `native`: the app, its web view's challenge, the callback and a link's account.
    public var native: NativeFlow?

    public init(provider: String, intent: Intent = .signIn, platform: Platform = .web, redirectURI: String,
                returnTo: String? = nil, browserBinding: String? = nil, native: NativeFlow? = nil) {
        self.provider = provider
        self.intent = intent
        self.platform = platform
        self.nonce = SecureRandom.token(byteCount: 24)
        self.codeVerifier = PKCE.generateVerifier()
        self.redirectURI = redirectURI
        self.returnTo = returnTo
        self.browserBinding = browserBinding
        self.native = native
    }

    /// Whether `returnTo` resumes an `/oauth/authorize` request of one of Gatehouse's own clients.
    public var resumesAuthorization: Bool { returnTo?.hasPrefix("/oauth/authorize") ?? false }

    /// JSON for storage.
    public func encoded() -> String {
        // Encoding plain strings and enums cannot fail.
        String(decoding: try! JSONEncoder().encode(self), as: UTF8.self)
    }

    /// Reads a stored payload; nil when it is not a flow (damaged or from another feature).
    public static func decode(_ payload: String) -> ProviderFlow? {
        try? JSONDecoder().decode(ProviderFlow.self, from: Data(payload.utf8))
    }
}
