import GatehouseHTTP
import GatehouseIdentity

/// A refused provider sign-in as an HTTP answer (its message is Identity's, `message(label:email:)`).
extension ExternalSignInRefusal {
    /// The status of the page or JSON answer: 409 for an existing account, 403 for a disabled one.
    var status: HTTPStatus { HTTPStatus(statusCode) }

    /// Identity's `message(label:email:)` in the page's language.
    func text(label: String, email: String?, _ t: Texts) -> String {
        let address = email ?? t["refusal.this_address"]
        return switch self {
        case .sessionChanged: t("refusal.session_changed", ["provider": label])
        case .linkedElsewhere: t("refusal.linked_elsewhere", ["provider": label])
        case .accountUnconfirmed(let own): t("refusal.account_unconfirmed", ["email": own])
        case .disabled: t["refusal.disabled"]
        case .missingEmail: t("refusal.missing_email", ["provider": label])
        case .unverifiedEmail: t("refusal.unverified_email", ["provider": label])
        case .accountExists(confirmed: false): t("refusal.exists_unconfirmed", ["email": address, "provider": label])
        case .accountExists(confirmed: true): t("refusal.exists", ["email": address, "provider": label])
        }
    }
}
