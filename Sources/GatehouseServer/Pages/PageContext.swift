import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// What every page route shares, built once in `GatehouseApp`: the layout, the session reader and the
/// services the shared screens need. Each page route takes what it uses from this one value instead of
/// reaching through another route's struct.
struct PageContext: Sendable {
    let layout: PageLayout
    let reader: WebSessionReader
    let audit: AuditTrail
    let clock: IdentityClock
    let sessions: SessionService
    /// Client names on the account page's "Applications" list.
    let clients: ClientRegistry
    /// Provider buttons, sign-in methods and deletion hooks (empty without providers).
    let providers: ProviderPages
    /// The account page's passkey list.
    let passkeys: WebAuthnCeremonies
    /// The account page's two-step section and the sign-in's second step.
    let secondFactors: SecondFactors
    let secondSteps: SecondStepChallenges

    /// A page response, setting the pre-session CSRF cookie when this request minted one. `csrfToken`:
    /// the request's token when the caller derived it already (it is one HMAC per page otherwise).
    /// `id`: the page's id for the operator's page blocks (docs/templates.md).
    func page(_ title: String, _ body: HTML, web: WebSession, status: HTTPStatus = .ok, csrfToken: String? = nil,
              id: String? = nil) -> Response {
        // Only the signed-in layout carries a token (its sign-out form).
        let signedIn = web.user != nil
        var response = Response.html(layout.render(title: title, body: body, texts: web.texts, signedIn: signedIn,
                                                   csrf: signedIn ? csrfToken ?? reader.token(for: web) : nil, page: id),
                                     status: status)
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        return response
    }

    /// Maps an account error to the page it should show, with the right status.
    func status(for error: AccountError) -> HTTPStatus {
        switch error {
        case .rateLimited: .tooManyRequests
        case .invalidCredentials, .accountDisabled: .unauthorized
        case .emailTaken, .lastSignInMethod: .conflict
        case .invalidToken, .notFound: .badRequest
        case .emailUnverified, .reauthenticationRequired: .forbidden
        case .invalidEmail, .weakPassword, .confirmationMismatch, .invalidName: .unprocessableContent
        }
    }

    func hidden(_ name: String, _ value: String) -> HTML { PageLayout.hidden(name, value) }
}
