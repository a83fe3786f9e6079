import GatehouseHTTP
import GatehouseIdentity

extension PageLayout {
    /// The id of a page's error notice: the fields it is about point at it, so a screen reader reads the
    /// error with the field, not only once at the top of the page.
    static let errorID = "form-error"

    /// `aria-invalid` and `aria-describedby` for a field named in `invalid`.
    static func invalid(_ name: String, in invalid: Set<String>) -> HTML {
        invalid.contains(name) ? #" aria-invalid="true" aria-describedby="\#(errorID)""# : .empty
    }
}

extension AccountError {
    /// The form fields (by `name`) the error is about; empty when it concerns the whole form (a rate limit).
    var fields: Set<String> {
        switch self {
        case .invalidCredentials: ["email", "password"]
        case .invalidEmail, .emailTaken: ["email"]
        case .weakPassword: ["password", "new_password"]
        default: []
        }
    }
}
