import GatehouseIdentity

extension SecondFactorRefusal {
    /// The refusal in the page's language. `hasApp`: the account has an authenticator app (a wrong code then
    /// names it; with only security keys, the code field takes recovery codes alone).
    func text(_ t: Texts, hasApp: Bool = true) -> String {
        switch self {
        case .wrongCode: t[hasApp ? "second_factor.wrong_code" : "second_factor.wrong_recovery_code"]
        case .reusedCode: t["second_factor.reused_code"]
        case .rateLimited(let wait): t("second_factor.rate_limited", ["wait": AccountError.describe(wait, t)])
        case .challengeExpired: t["second_factor.challenge_expired"]
        case .alreadyEnrolled: t["second_factor.already_enrolled"]
        case .notEnrolled: t["second_factor.not_enrolled"]
        case .lastFactor: t["second_factor.last_factor"]
        case .requiredByApplication(let name): t("second_factor.required_by_application", ["app": name])
        case .noSecurityKey: t["second_factor.no_security_key"]
        }
    }
}
