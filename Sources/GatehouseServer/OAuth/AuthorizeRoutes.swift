import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `/oauth/authorize`: validates the request, sends the user through sign-in and consent as needed,
/// and redirects back with a code (or an error) to the verified redirect URI.
struct AuthorizeRoutes: Sendable {
    let parser: AuthorizationRequestParser
    let authorization: AuthorizationService
    /// The `prompt`, `max_age` and `id_token_hint` rules, the account's standing and the approval step.
    let decider: AuthorizationDecider
    /// The layout, the session reader, the audit trail and the clock every page route shares.
    let context: PageContext
    let settings: OAuthSettings
    /// `provider=…` on the request: straight to that provider instead of the sign-in page (nil: ignored).
    let providerHint: ProviderSignInHint?
    /// Where `request_uri` values from the PAR endpoint are taken from (RFC 9126 §4; nil: no PAR endpoint).
    let pushed: PushedAuthorizationRequests?

    /// The only parameter of a resumed request: the id of a request parked by ``PendingAuthorizations``.
    static let pendingParameter = "gatehouse_pending"
    /// The decision form's fields: the parked request's id, the CSRF token and the clicked button.
    static let requestField = "request"
    static let decisionField = "decision"

    var pending: PendingAuthorizations { authorization.pending }
    var reader: WebSessionReader { context.reader }
    var layout: PageLayout { context.layout }
    var audit: AuditTrail { context.audit }
    var clock: IdentityClock { context.clock }

    func register(into router: inout Router) {
        // HEAD is refused (the router's default for deferred handlers): a HEAD must never mint a code.
        router.get("/oauth/authorize") { request async throws in
            carryLanguage(try await authorize(request, parameters: request.query.pairs), request.query.pairs, request)
        }
        router.post("/oauth/authorize") { request async throws in
            let parameters = try request.form().pairs
            return carryLanguage(try await authorize(request, parameters: parameters), parameters, request)
        }
        router.post("/oauth/authorize/decision") { request async throws in try await decide(request) }
    }

    private func authorize(_ request: Request, parameters incoming: [(key: String, value: String)]) async throws -> Response {
        var parameters = incoming
        var requestedAt = clock.now()
        var resumed = false
        if incoming.contains(where: { $0.key == Self.pendingParameter }) {
            // Coming back from sign-in: the parked request is the whole request (nothing added on the way).
            guard incoming.count == 1, let parked = try await pending.take(incoming[0].value), parked.sessionIdHash == nil else {
                return expiredPage(layout.languages.texts(for: request))
            }
            parameters = parked.parameters
            requestedAt = parked.requestedAt
            resumed = true
        }
        // A pushed request (RFC 9126 §4): the pushed parameters are the whole request, taken out once.
        var pushedRequest = resumed
        if let pushed, let uri = incoming.first(where: { $0.key == "request_uri" })?.value,
           uri.hasPrefix(PushedAuthorizationRequests.uriPrefix), !resumed {
            guard let pushedParameters = try await pushed.take(uri, clientID: incoming.first(where: { $0.key == "client_id" })?.value) else {
                return failurePage(.untrusted("This request_uri is unknown, has expired or was already used; start again from the application."),
                                   layout.languages.texts(for: request))
            }
            parameters = pushedParameters
            pushedRequest = true
        }
        let authorizationRequest: AuthorizationRequest
        do { authorizationRequest = try await parser.parse(Self.multimap(parameters)) } catch let failure as AuthorizationFailure {
            return failurePage(failure, layout.languages.texts(for: request))
        }
        if !pushedRequest, settings.requirePushedAuthorizationRequests || authorizationRequest.client.requiresPushedAuthorizationRequests {
            return errorRedirect(.invalidRequest, "This application must push its authorization requests (PAR).", authorizationRequest)
        }
        let hintedProvider: String?
        do { hintedProvider = try providerHintParameter(parameters, authorizationRequest) } catch {
            return failurePage(error, layout.languages.texts(for: request))
        }
        let web = try await reader.read(request)
        switch try await decider.decide(authorizationRequest, signedIn: web.active, requestedAt: requestedAt, resumed: resumed) {
        case .error(let code, let description):
            return errorRedirect(code, description, authorizationRequest)
        case .signIn(let reauthenticate):
            let parked = PendingAuthorization(parameters: parameters.filter { $0.key != ProviderSignInHint.parameter },
                                              requestedAt: requestedAt)
            let id = try await pending.park(parked)
            // In a Hotwire Native app the provider must not open in the web view (Google refuses it): the sign-in
            // page gets the hint and its bridge script hands that provider to the system browser at once.
            if let hinted = hintedProvider, !Self.isHotwireNativeApp(request),
               let response = try await providerHint?.start(hinted, request: request, returnTo: Self.resumePath(pendingID: id)) {
                return response
            }
            return signIn(pendingID: id, loginHint: authorizationRequest.loginHint, reauth: reauthenticate,
                          provider: Self.isHotwireNativeApp(request) ? hintedProvider : nil)
        case .stepUp:
            // Parked like a sign-in: the second step starts a new session, which the resumed request is decided for.
            let id = try await pending.park(PendingAuthorization(parameters: parameters, requestedAt: requestedAt))
            return .redirect(to: "/sign-in/step-up?return_to=" + PercentDecoding.encode(Self.resumePath(pendingID: id)))
        case .unconfirmedEmail(let user):
            return unconfirmedPage(user, web.texts)
        case .approve(let active):
            return .redirect(to: try await authorization.approve(authorizationRequest, userId: active.user.id,
                                                                 authTime: active.session.createdAt,
                                                                 authMethods: active.session.authMethods))
        case .ask(let step, let active):
            let id = try await pending.park(PendingAuthorization(parameters: parameters, requestedAt: requestedAt,
                                                                 sessionIdHash: active.session.idHash, userId: active.user.id))
            return decisionPage(step, authorizationRequest, pendingID: id, web: web)
        }
    }

    /// The consent (or "continue as") form's answer. Exactly one decision, from the clicked button;
    /// the request it answers comes from the server, bound to the session it was shown to, single use.
    private func decide(_ request: Request) async throws -> Response {
        let (form, web) = try await reader.postedForm(request)
        let decisions = form.pairs.filter { $0.key == Self.decisionField }.map(\.value)
        guard decisions.count == 1, let decision = decisions.first, decision == "allow" || decision == "deny" else {
            throw HTTPError(.badRequest, "The form must carry exactly one decision: allow or deny.")
        }
        let ids = form.pairs.filter { $0.key == Self.requestField }.map(\.value)
        guard ids.count == 1 else { throw HTTPError(.badRequest, "The form must name exactly one authorization request.") }
        guard let active = web.active else {
            throw HTTPError(.badRequest, "You are no longer signed in. Go back to the application and start again.")
        }
        guard let parked = try await pending.take(ids[0]), parked.isBound(toSession: active.session.idHash, userId: active.user.id) else {
            throw HTTPError(.badRequest, "This request has expired or was already answered. Go back to the application and start again.")
        }
        let authorizationRequest: AuthorizationRequest
        do { authorizationRequest = try await parser.parse(Self.multimap(parked.parameters)) } catch let failure as AuthorizationFailure {
            return failurePage(failure, web.texts)
        }
        guard decision == "allow" else {
            await audit.record(.consentDenied, userId: active.user.id, context: request.clientContext,
                               details: ["client_id": authorizationRequest.client.id])
            return errorRedirect(.accessDenied, "The user declined.", authorizationRequest)
        }
        try await authorization.recordConsent(authorizationRequest, userId: active.user.id)
        await audit.record(.consentGranted, userId: active.user.id, context: request.clientContext,
                           details: ["client_id": authorizationRequest.client.id, "scope": authorizationRequest.scope.description])
        return .redirect(to: try await authorization.approve(authorizationRequest, userId: active.user.id,
                                                             authTime: active.session.createdAt,
                                                             authMethods: active.session.authMethods))
    }

    private func errorRedirect(_ code: OAuthError.Code, _ description: String, _ request: AuthorizationRequest) -> Response {
        .redirect(to: authorization.errorRedirect(OAuthError(code, description), redirectURI: request.redirectURI, state: request.state))
    }

    /// Where sign-in (or the hinted provider's sign-in) returns to: the parked request.
    static func resumePath(pendingID: String) -> String {
        "/oauth/authorize?" + URLEncodedForm(pairs: [(Self.pendingParameter, pendingID)]).encoded
    }

    /// A page in a Hotwire Native app whose bridge has Gatehouse's `sign-in-with-oauth` component.
    static func isHotwireNativeApp(_ request: Request) -> Bool {
        guard let agent = request.headers["User-Agent"] else { return false }
        return (agent.contains("Hotwire Native") || agent.contains("Turbo Native")) && agent.contains("bridge-components: [")
            && agent.contains("sign-in-with-oauth")
    }

    private func signIn(pendingID: String, loginHint: String?, reauth: Bool, provider: String? = nil) -> Response {
        let back = Self.resumePath(pendingID: pendingID)
        var target = "/sign-in?return_to=" + PercentDecoding.encode(back)
        // The product's "Sign in with Google" in the app: the bridge script starts that provider from the sign-in page.
        if let provider, provider.utf8.count <= 32, provider.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            target += "&provider=" + provider.lowercased()
        }
        if let loginHint { target += "&login_hint=" + PercentDecoding.encode(String(loginHint.prefix(320))) }
        if reauth { target += "&reauth=1" }
        return .redirect(to: target)
    }

    /// The provider the request names (`provider=google`), after checking it is enabled: an unknown one is
    /// reported to the client (RFC 6749 §4.1.2.1 `invalid_request`), since its redirect URI is verified by now.
    private func providerHintParameter(_ parameters: [(key: String, value: String)], _ request: AuthorizationRequest)
        throws(AuthorizationFailure) -> String?
    {
        let values = parameters.filter { $0.key == ProviderSignInHint.parameter }.map(\.value)
        guard let value = values.first else { return nil }
        func fail(_ description: String) -> AuthorizationFailure {
            .redirect(.invalidRequest(description), redirectURI: request.redirectURI, state: request.state)
        }
        guard values.count == 1 else { throw fail("The provider parameter appears more than once.") }
        guard let hint = providerHint, hint.isKnown(value) else {
            throw fail("Unknown sign-in provider \"\(value.prefix(64))\".")
        }
        return value
    }

    private func unconfirmedPage(_ user: User, _ t: Texts) -> Response {
        let response = Response.html(layout.render(title: t["authorize.unconfirmed_title"], body: """
            \(PageLayout.notice(t("authorize.unconfirmed_notice", ["email": user.email])))
            <p>\(t.html("authorize.unconfirmed_body", ["reset": #"<a href="/password/forgot">\#(t["authorize.unconfirmed_reset"])</a>"#]))</p>
            """, texts: t), status: .forbidden)
        return response
    }

    private func expiredPage(_ t: Texts) -> Response {
        let response = Response.html(layout.render(title: t["authorize.expired_title"], body: """
            \(PageLayout.notice(t["authorize.expired_notice"]))
            <p>\(t["authorize.expired_body"])</p>
            """, texts: t), status: .badRequest)
        return response
    }

    private func failurePage(_ failure: AuthorizationFailure, _ t: Texts) -> Response {
        switch failure {
        case .untrusted(let message):
            let response = Response.html(layout.render(title: t["authorize.invalid_title"], body: """
                \(PageLayout.notice(t.translating(message)))
                <p>\(t["authorize.invalid_body"])</p>
                """, texts: t), status: .badRequest)
            return response
        case .redirect(let error, let redirectURI, let state):
            return .redirect(to: authorization.errorRedirect(error, redirectURI: redirectURI, state: state))
        }
    }

    /// The consent page, or the "continue as" page for a client whose identity cannot be assured.
    /// The form carries the CSRF token, the parked request's id and the clicked button — nothing else.
    private func decisionPage(_ step: AuthorizationService.ApprovalStep, _ request: AuthorizationRequest, pendingID: String,
                              web: WebSession) -> Response {
        let t = web.texts
        let csrf = reader.token(for: web)
        let email = web.user?.email ?? ""
        let form: HTML = """
            <form method="post" action="/oauth/authorize/decision">
            <input type="hidden" name="csrf_token" value="\(csrf)">
            <input type="hidden" name="\(Self.requestField)" value="\(pendingID)">
            <button type="submit" name="\(Self.decisionField)" value="allow">\(t[step == .confirm ? "authorize.continue" : "authorize.allow"])</button>
            <button type="submit" name="\(Self.decisionField)" value="deny" class="secondary">\(t[step == .confirm ? "authorize.cancel" : "authorize.deny"])</button>
            </form>
            """
        let title: String
        let body: HTML
        if step == .confirm {
            title = t("authorize.confirm_title", ["client": request.client.name])
            body = """
                <p>\(t.html("authorize.confirm_question", ["client": "<strong>\(request.client.name)</strong>", "email": "<strong>\(email)</strong>"]))</p>
                <p class="muted">\(t("authorize.confirm_warning", ["client": request.client.name]))</p>
                \(form)
                """
        } else {
            let scopes = request.scope.values.map { scope -> HTML in "<li>\(Self.describe(scope: scope, t))</li>" }.joined()
            title = t("authorize.consent_title", ["client": request.client.name])
            body = """
                <p>\(t.html("authorize.consent_intro", ["client": "<strong>\(request.client.name)</strong>",
                                                         "product": "\(layout.branding.productName)", "email": "\(email)"]))</p>
                <ul id="scopes">\(scopes)</ul>
                <p class="muted">\(t("authorize.consent_redirect", ["redirect_uri": request.redirectURI]))</p>
                \(form)
                """
        }
        return Response.html(layout.render(title: title, body: body, texts: t, signedIn: true, csrf: csrf, page: "consent"))
    }

    static func describe(scope: String, _ t: Texts) -> String {
        switch scope {
        case Scope.openID: t["scope.openid"]
        case Scope.profile: t["scope.profile"]
        case Scope.email: t["scope.email"]
        case Scope.offlineAccess: t["scope.offline_access"]
        default: t("scope.other", ["scope": scope])
        }
    }

    /// `ui_locales` (OIDC Core §3.1.2.1) kept for the rest of the flow: the sign-in, sign-up and consent pages
    /// that follow are in that language (below a signed-in user's saved choice). A new request without it
    /// forgets the last one's; a resumed request (the parked one's id only) leaves it as it is.
    func carryLanguage(_ response: Response, _ parameters: [(key: String, value: String)], _ request: Request) -> Response {
        guard !parameters.contains(where: { $0.key == Self.pendingParameter }) else { return response }
        let name = layout.languages.uiLocalesCookie
        var response = response
        let requested = parameters.first { $0.key == "ui_locales" }?.value.prefix(256)
            .split(separator: " ").lazy.compactMap { layout.languages.match(String($0)) }.first
        if let tag = requested, let cookie = try? SetCookie(name: name, value: tag, path: reader.cookies.path,
                                                              secure: reader.cookies.secure, httpOnly: true, sameSite: .lax) {
            response.setCookie(cookie)
        } else if request.cookies[name] != nil, let clear = try? SetCookie.expiring(name, path: reader.cookies.path, secure: reader.cookies.secure) {
            response.setCookie(clear)
        }
        return response
    }

    static func multimap(_ pairs: [(key: String, value: String)]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (key, value) in pairs { result[key, default: []].append(value) }
        return result
    }
}
