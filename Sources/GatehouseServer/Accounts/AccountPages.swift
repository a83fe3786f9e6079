import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The pages a person uses: sign-up, sign-in, sign-out, account, password reset, email verification.
/// Server-rendered HTML that works without JavaScript; every state change is a POST with a CSRF token
/// answered by a 303.
struct AccountPages: Sendable {
    /// The layout, the session reader and the services every page route shares.
    let context: PageContext
    let accounts: AccountService
    let links: EmailLinks
    let tokens: TokenService
    /// The "revoke" of an application on the account page.
    let applications: ApplicationAccessRevocation
    /// The account's data, for its owner to download.
    let dataExport: AccountDataExport

    var reader: WebSessionReader { context.reader }
    var sessions: SessionService { context.sessions }
    var audit: AuditTrail { context.audit }
    var clock: IdentityClock { context.clock }
    var providers: ProviderPages { context.providers }

    func register(into router: inout Router) {
        router.get("/", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            return .redirect(to: web.user == nil ? "/sign-in" : "/account")
        }
        registerSignUp(into: &router)
        registerSignIn(into: &router)
        registerAccount(into: &router)
        registerSelfService(into: &router)
        registerPreferences(into: &router)
        registerPasswordReset(into: &router)
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
        guard value.utf8.count <= max else { throw HTTPError(.payloadTooLarge, "A field of this form is too long.") }
        return value
    }

}
