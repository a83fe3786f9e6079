import GatehouseIdentity

extension AccountError {
    /// The error's message in the page's language. The domain's English `message` stays the audit's and the
    /// admin API's wording; a password rule's sentence is translated through its English text.
    func text(_ t: Texts) -> String {
        switch self {
        case .invalidEmail: t["error.invalid_email"]
        case .weakPassword(let why): Self.passwordRule(why, t)
        case .emailTaken: t["error.email_taken"]
        case .invalidCredentials: t["error.invalid_credentials"]
        case .accountDisabled: t["error.account_disabled"]
        case .rateLimited(let wait):
            t("error.rate_limited", ["wait": Self.describe(wait, t)])
        case .invalidToken: t["error.invalid_token"]
        case .notFound: t["error.not_found"]
        case .emailUnverified: t["error.email_unverified"]
        case .reauthenticationRequired: t["error.reauthentication_required"]
        case .lastSignInMethod: t["error.last_sign_in_method"]
        case .confirmationMismatch: t["error.confirmation_mismatch"]
        case .invalidName: t["error.invalid_name"]
        }
    }

    /// The password policy's sentence; its length limits carry a number, so they are matched by their start.
    static func passwordRule(_ why: String, _ t: Texts) -> String {
        for prefix in ["Use at least ", "Use at most "] where why.hasPrefix(prefix) {
            if let count = Int(why.dropFirst(prefix.count).prefix { $0.isNumber }) {
                return t.count(prefix == "Use at least " ? "error.password_min" : "error.password_max", count)
            }
        }
        return t.translating(why)
    }

    /// "3 seconds", "2 minutes": whole seconds below a minute, whole minutes (rounded up) above.
    static func describe(_ wait: Double, _ t: Texts) -> String {
        let whole = Int(wait.rounded(.up))
        return whole < 60 ? t.count("time.seconds", whole) : t.count("time.minutes", (whole + 59) / 60)
    }
}
