import Foundation

/// Why a sign-in started from the app did not end signed in — every refusal Gatehouse documents
/// (docs/integrations/hotwire-native.md, "Error codes the app can receive"), sorted into what the app does about it.
///
/// The hand-off callback, the native `/native/apple` and `/native/google` answers, the component's own checks and
/// the platform SDKs' failures all arrive as one of these, so an app switches on the case instead of parsing strings.
public enum GatehouseSignInError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The user closed the sheet or the browser, or pressed Cancel at the provider or on "Continue to …?".
    case cancelled
    /// An account with this email already exists: the user signs in to it and links the provider from /account.
    case accountExists(message: String)
    /// Gatehouse or the provider could not be reached, or timed out: try again later.
    case network(message: String)
    /// The app or Gatehouse is set up wrongly (unregistered app, unknown client, a provider configured nowhere, a
    /// page that may not start a sign-in): an operator or developer problem, not the user's.
    case misconfigured(code: String, message: String)
    /// A native provider (`"apple"`, `"google"`) the app listed but cannot use: no SDK bridge supplied, or the
    /// platform has none. The app sees this instead of a silent fallback to the system browser.
    case nativeProviderUnavailable(provider: String)
    /// Gatehouse or the provider refused this sign-in (expired flow, unverified email, disabled account, …): the
    /// message says why, and starting again may work.
    case refused(code: String, message: String)

    /// The codes of the hand-off callback and the native endpoints that are the operator's problem.
    static let misconfiguredCodes: Set<String> = [
        "misconfigured", "invalid_client", "unauthorized_client", "unsupported_provider", "invalid_scope", "invalid_request",
    ]
    static let networkCodes: Set<String> = ["provider_unavailable", "provider_timeout", "temporarily_unavailable", "server_error"]

    /// Sorts a Gatehouse error (`error` and `error_description` from a bridge reply or a JSON body). On the hand-off
    /// callback `access_denied` is the user's Cancel on "Continue to …?": pass `fromCallback`.
    public init(code: String, description: String?, fromCallback: Bool = false) {
        let message = description ?? Self.defaultMessage(code)
        if code == "cancelled" || (fromCallback && code == "access_denied") {
            self = .cancelled
        } else if code == "account_exists" {
            self = .accountExists(message: message)
        } else if Self.networkCodes.contains(code) {
            self = .network(message: message)
        } else if Self.misconfiguredCodes.contains(code) {
            self = .misconfigured(code: code, message: message)
        } else {
            self = .refused(code: code, message: message)
        }
    }

    public init(_ error: OAuthError) {
        self.init(code: error.code.rawValue, description: error.errorDescription)
    }

    /// Any error from the SDK's calls: Gatehouse's own errors are sorted, transport failures are `network`.
    public init(_ error: any Error) {
        switch error {
        case let error as GatehouseSignInError: self = error
        case let error as OAuthError: self.init(error)
        case HandoffError.provider(let error): self.init(code: error.code.rawValue, description: error.errorDescription, fromCallback: true)
        case let error as HandoffError: self = .refused(code: "invalid_callback", message: "Signing in did not complete (\(error)).")
        case let error as HTTPTransportError: self = .network(message: "Gatehouse answered unexpectedly (\(error)).")
        case let error as URLError: self = .network(message: error.localizedDescription)
        default: self = .refused(code: "invalid_callback", message: "Signing in did not complete.")
        }
    }

    /// The `error` code this is reported as (to the page, in a bridge reply).
    public var code: String {
        switch self {
        case .cancelled: "cancelled"
        case .accountExists: "account_exists"
        case .network: "temporarily_unavailable"
        case .misconfigured(let code, _): code
        case .nativeProviderUnavailable: "unsupported_provider"
        case .refused(let code, _): code
        }
    }

    /// A sentence the app can show the user.
    public var userMessage: String {
        switch self {
        case .cancelled: "You closed the sign-in."
        case .accountExists(let message), .network(let message), .misconfigured(_, let message), .refused(_, let message): message
        case .nativeProviderUnavailable(let provider): "Sign in with \(Self.providerName(provider)) isn't available in this app."
        }
    }

    public var description: String { "GatehouseSignInError(\(code): \(userMessage))" }

    static func providerName(_ provider: String) -> String {
        switch provider {
        case "apple": "Apple"
        case "google": "Google"
        case "github": "GitHub"
        default: provider
        }
    }

    static func defaultMessage(_ code: String) -> String {
        switch code {
        case "account_exists": "An account with this email already exists. Sign in to it, then link this provider from your account."
        case "provider_unavailable", "provider_timeout", "temporarily_unavailable", "server_error": "Signing in is unavailable right now. Try again later."
        default: "Signing in did not complete (\(code))."
        }
    }
}
