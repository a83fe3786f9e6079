import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// What happens once a provider sign-in has resolved to a Gatehouse user — chosen by the flow's
/// ``ProviderFlow/Platform``. The web signs this browser in; the native hand-off (F2) registers its own
/// completion for `.native` (mint a single-use token bound to the app's verifier and redirect to the
/// app's scheme) via ``ProviderRoutes/completions``. A platform without a completion cannot be started.
protocol ProviderCompletion: Sendable {
    /// Checks the start form's platform-specific fields and returns what the flow must carry to the end.
    func prepare(_ form: URLEncodedForm) async throws -> [String: String]?
    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response
    /// Where a failed flow of this platform ends; nil means the sign-in page.
    func fail(reason: String, message: String, flow: ProviderFlow) async -> Response?
}

extension ProviderCompletion {
    func prepare(_ form: URLEncodedForm) async throws -> [String: String]? { nil }
    func fail(reason: String, message: String, flow: ProviderFlow) async -> Response? { nil }
}

/// `platform=web`: a new session cookie in this browser (a new id at every sign-in), then 303 to the
/// pending `return_to` — which may be an `/oauth/authorize` request waiting for this sign-in.
struct WebSignInCompletion: ProviderCompletion {
    let sessions: SessionService
    let cookies: CookiePolicy

    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response {
        if let old = web.token { _ = try await sessions.end(token: old) }
        let issued = try await sessions.start(userId: user.id, methods: [ticket.provider], context: request.clientContext)
        var response = Response.redirect(to: ReturnPath.validated(ticket.flow.returnTo) ?? ReturnPath.fallback)
        response.setCookie(cookies.sessionCookie(token: issued.token))
        return response
    }
}
