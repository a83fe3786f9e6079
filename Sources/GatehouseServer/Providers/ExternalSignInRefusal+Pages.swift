import GatehouseHTTP
import GatehouseIdentity

/// A refused provider sign-in as an HTTP answer (its message is Identity's, `message(label:email:)`).
extension ExternalSignInRefusal {
    /// The status of the page or JSON answer: 409 for an existing account, 403 for a disabled one.
    var status: HTTPStatus { HTTPStatus(statusCode) }
}
