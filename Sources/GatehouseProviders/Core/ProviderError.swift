/// Why an upstream sign-in failed. Every case has a message fit for the sign-in page and a short
/// reason for the audit log; neither reveals tokens or secrets.
public enum ProviderError: Error, Sendable, Equatable {
    /// The user cancelled at the provider (`access_denied`, Apple's `user_cancelled_authorize`).
    case cancelled
    /// The provider answered with another OAuth `error` code.
    case providerError(String)
    /// The callback lacked what it must carry (code, state) or carried junk.
    case invalidCallback(String)
    /// No flow matches the `state`: forged, replayed, or from another browser.
    case invalidState
    /// The flow was older than its lifetime.
    case expiredFlow
    /// The provider could not be reached, answered 5xx, or its keys could not be fetched.
    case unavailable(String)
    /// The provider did not answer within the time limit.
    case timedOut
    /// The id_token (or another signed answer) failed verification; the reason names the check.
    case invalidToken(TokenCheck)
    /// The id_token's nonce is not the one this flow sent.
    case nonceMismatch
    /// The provider gave no email address and the account needs one.
    case missingEmail
    /// The provider's address is not verified (GitHub without a primary verified email, Google unverified).
    case unverifiedEmail
    /// A Google Workspace restriction (`hd`) was not met.
    case domainNotAllowed
    /// Gatehouse's configuration for the provider is wrong (missing key, bad endpoint).
    case misconfigured(String)

    /// The message shown on the sign-in page.
    public var userMessage: String {
        switch self {
        case .cancelled: "Sign-in was cancelled. You can try again or use another method."
        case .providerError: "The provider reported an error and did not sign you in. Please try again."
        case .invalidCallback: "The answer from the provider was incomplete. Please try again."
        case .invalidState: "This sign-in link is not valid any more (it was used already or did not start here). Please start again."
        case .expiredFlow: "The sign-in took too long and expired. Please start again."
        case .unavailable, .timedOut: "The provider is not reachable right now. Please try again in a moment or use another method."
        case .invalidToken, .nonceMismatch: "The provider's answer could not be verified, so you were not signed in."
        case .missingEmail: "The provider did not share an email address, which this account needs. Allow access to your email and try again."
        case .unverifiedEmail: "Your email address at the provider is not verified. Verify it there (or make a verified address primary) and try again."
        case .domainNotAllowed: "This account's domain is not allowed to sign in here."
        case .misconfigured: "This sign-in method is not set up correctly. Please tell the site's operator."
        }
    }

    /// A short machine-readable reason for the audit log.
    public var auditReason: String {
        switch self {
        case .cancelled: "cancelled"
        case .providerError(let code): "provider_error:\(code)"
        case .invalidCallback: "invalid_callback"
        case .invalidState: "invalid_state"
        case .expiredFlow: "expired_flow"
        case .unavailable: "provider_unavailable"
        case .timedOut: "provider_timeout"
        case .invalidToken(let check): "invalid_token:\(check.reason)"
        case .nonceMismatch: "nonce_mismatch"
        case .missingEmail: "missing_email"
        case .unverifiedEmail: "unverified_email"
        case .domainNotAllowed: "domain_not_allowed"
        case .misconfigured: "misconfigured"
        }
    }

    /// The kind of failure without its detail (`provider_error`, not `provider_error:access_denied`): the
    /// `error` a native app's callback carries.
    public var code: String {
        switch self {
        case .providerError: "provider_error"
        case .invalidToken: "invalid_token"
        default: auditReason
        }
    }
}
