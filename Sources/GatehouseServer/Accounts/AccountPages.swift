import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The pages a person uses: sign-up, sign-in, sign-out, account, password reset, email verification.
/// Server-rendered HTML that works without JavaScript; every state change is a POST with a CSRF token
/// answered by a 303.
struct AccountPages: Sendable {
    let accounts: AccountService
    let links: EmailLinks
    let sessions: SessionService
    let reader: WebSessionReader
    let layout: PageLayout
    let database: any GatehouseDatabase
    let audit: AuditTrail
    let clock: IdentityClock
    let tokens: TokenService
    /// Provider buttons, sign-in methods and deletion hooks (empty without providers).
    var providers: ProviderPages = .none
    /// How recent a sign-in must be to delete the account without re-entering the password.
    let recentSignInWindow: TimeInterval = 5 * 60

    func register(into router: inout Router) {
        router.get("/", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            return .redirect(to: web.user == nil ? "/sign-in" : "/account")
        }
        registerSignUp(into: &router)
        registerSignIn(into: &router)
        registerAccount(into: &router)
        registerPasswordReset(into: &router)
    }

    /// A page response, setting the pre-session CSRF cookie when this request minted one.
    func page(_ title: String, _ body: HTML, web: WebSession, status: HTTPStatus = .ok) -> Response {
        var response = Response.html(layout.render(title: title, body: body, signedIn: web.user != nil,
                                                   csrf: reader.token(for: web)), status: status)
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        response.noStore()
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
        case .invalidEmail, .weakPassword: .unprocessableContent
        }
    }

    func withRetryAfter(_ response: Response, _ error: AccountError) -> Response {
        guard case .rateLimited(let wait) = error else { return response }
        var response = response
        response.headers.set("Retry-After", String(Int(wait.rounded(.up))))
        return response
    }

    /// Form fields are bounded: anything longer is refused before it reaches Argon2id or the store.
    func field(_ form: URLEncodedForm, _ name: String, max: Int = 1024) throws(HTTPError) -> String {
        let value = form[name] ?? ""
        guard value.utf8.count <= max else { throw HTTPError(.payloadTooLarge, "The \(name.replacingOccurrences(of: "_", with: " ")) is too long.") }
        return value
    }

    func hidden(_ name: String, _ value: String) -> HTML { PageLayout.hidden(name, value) }
}
