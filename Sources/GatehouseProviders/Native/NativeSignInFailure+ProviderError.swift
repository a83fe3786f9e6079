import GatehouseIdentity

/// The refusals every native verifier shares; each verifier answers its own errors first.
extension NativeSignInFailure {
    /// A provider error as a refusal naming the failed check, in `wording`'s words.
    init(_ error: ProviderError, redeeming: Bool, wording: NativeSignInWording) {
        let token = wording.token
        switch error {
        case .nonceMismatch:
            self.init(status: 401, code: .invalidToken, description: "The \(token)'s nonce is not the SHA-256 of raw_nonce.",
                      reason: error.auditReason)
        case .invalidToken(let why):
            let description = switch why {
            case .expired: "The \(token) has expired."
            case .audience: "The \(token) was issued to another app (aud)."
            case .authorizedParty: "The \(token) was requested by another app (azp)."
            case .issuer: "The \(token) was not issued by \(wording.issuer) (iss)."
            case .unknownKey, .signature: "The \(token)'s signature does not verify against \(wording.issuer)'s keys."
            case .codeSubject: "The authorization code belongs to another sign-in."
            case .time: "The \(token) is not valid yet."
            default: "The \(token) is malformed or incomplete."
            }
            // Only a redeemed code can belong to another sign-in: a refused grant, not a bad token.
            self.init(status: why == .codeSubject ? 400 : 401, code: why == .codeSubject ? .invalidGrant : .invalidToken,
                      description: description, reason: error.auditReason)
        case .misconfigured:
            self.init(status: 503, code: .temporarilyUnavailable, description: wording.misconfigured, reason: error.auditReason)
        case .unavailable, .timedOut:
            self.init(status: 503, code: .temporarilyUnavailable, description: "\(wording.issuer) could not be reached; try again.",
                      reason: error.auditReason)
        default:
            self.init(status: 400, code: redeeming ? .invalidGrant : .invalidToken, description: error.userMessage,
                      reason: error.auditReason)
        }
    }
}
