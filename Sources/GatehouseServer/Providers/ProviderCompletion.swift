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
    func prepare(_ form: URLEncodedForm) async throws -> NativeFlow?
    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response
    /// A link for an account that is not signed in in this browser (from the app): writes nothing, and
    /// carries the ticket's verified identity on to where that account's session is; nil when this
    /// platform has no such step (the link is then decided here, in the signed-in browser).
    func holdLink(into userId: String, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response?
    /// Where a failed flow of this platform ends, given the failure's `code` (``ProviderError/code`` or
    /// ``ExternalSignInRefusal/reason``); nil means the sign-in page.
    func fail(code: String, message: String, flow: ProviderFlow) async -> Response?
}

extension ProviderCompletion {
    func prepare(_ form: URLEncodedForm) async throws -> NativeFlow? { nil }
    func holdLink(into userId: String, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response? { nil }
    func fail(code: String, message: String, flow: ProviderFlow) async -> Response? { nil }
}

/// `platform=web`: a new session cookie in this browser (a new id at every sign-in), then 303 to the
/// pending `return_to` — which may be an `/oauth/authorize` request waiting for this sign-in.
struct WebSignInCompletion: ProviderCompletion {
    let sessions: SessionService
    let cookies: CookiePolicy

    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response {
        if let old = web.token { _ = try await sessions.end(token: old) }
        let issued = try await sessions.start(userId: user.id, methods: [ticket.identity.provider], context: request.clientContext)
        var response = Response.redirect(to: ReturnPath.validated(ticket.flow.returnTo) ?? ReturnPath.fallback)
        response.setCookie(cookies.sessionCookie(token: issued.token))
        return response
    }
}
