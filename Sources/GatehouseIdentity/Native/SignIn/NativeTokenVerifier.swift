import Foundation

/// The port through which ``NativeSignIn`` checks a token from a provider's native SDK; the Providers layer
/// implements it once per provider (Apple, Google). Everything else of a native sign-in — the app, the
/// replay rule, the account rules, the audit — is the use case's, the same for every provider.
public protocol NativeTokenVerifier: Sendable {
    /// What the provider verified, before the replay check; turned into the identity after it.
    associatedtype Verified: Sendable

    static var kind: NativeProviderKind { get }
    /// The configured provider: its id and the name people see.
    var provider: (id: String, displayName: String) { get }
    /// Checks the token's signature, issuer, audience (one of `audiences`), time and nonce.
    func verify(_ token: String, audiences: [String], rawNonce: String) async throws -> Verified
    /// What the provider proved, after redeeming `authorizationCode` where the provider takes one.
    func identity(_ verified: Verified, authorizationCode: String?, name: String?) async throws -> VerifiedExternalIdentity
    /// The refusal for an error `verify` or `identity` threw, naming the failed check; nil for an error
    /// that is not the provider's (it propagates as it is).
    func failure(for error: any Error, redeeming: Bool) -> NativeSignInFailure?
}

/// The providers with a native sign-in, and what tells them apart outside their verifiers.
public enum NativeProviderKind: String, Sendable {
    case apple, google

    /// The audiences `app` accepts from this provider (empty: the app is not set up for it).
    public func audiences(of app: NativeApp) -> [String] {
        switch self {
        case .apple: app.appleAudiences
        case .google: app.googleClientIDs
        }
    }

    /// The refusals' words that name the provider.
    public var wording: NativeSignInWording {
        switch self {
        case .apple: .apple
        case .google: .google
        }
    }
}

/// The refusals' descriptions that name the provider.
public struct NativeSignInWording: Sendable {
    /// `identity token` (Apple's name for it) or `ID token`.
    public let token: String
    /// Who issues the tokens and answers the code: `Apple`, `Google`.
    public let issuer: String
    public let disabled: String
    public let noAudience: String
    public let notNativeApp: String
    /// The provider is set up wrongly here (a 503: the person can do nothing about it).
    public let misconfigured: String

    /// "This … was already used; sign in with … again."
    public var replayed: String { "This \(token) was already used; sign in with \(issuer) again." }

    static let apple = NativeSignInWording(
        token: "identity token", issuer: "Apple", disabled: "Sign in with Apple is not enabled on this server.",
        noAudience: "This app has no bundle id registered for Sign in with Apple.", notNativeApp: "This client is not a native app with a bundle id.",
        misconfigured: "Sign in with Apple is misconfigured on this server.")
    static let google = NativeSignInWording(
        token: "ID token", issuer: "Google", disabled: "Sign in with Google is not enabled on this server.",
        noAudience: "This app has no Google client id registered (google_client_ids).", notNativeApp: "This client is not a native app with a Google client id.",
        misconfigured: "Google could not be reached; try again.")
}
