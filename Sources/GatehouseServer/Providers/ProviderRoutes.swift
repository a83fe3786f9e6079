import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// F1: web sign-in with a provider. Per enabled provider `{id}`:
///
/// - `POST /auth/{id}` — start (CSRF-checked form from the sign-in page): flow state stored server-side,
///   a browser-binding cookie set, 303 to the provider;
/// - `POST /auth/{id}/link` — the same, for a signed-in user adding this method;
/// - `GET|POST /auth/{id}/callback` — the provider's answer (Apple POSTs cross-site, so no cookies are
///   needed here): the flow is consumed by `state`, the answer verified, and a finish ticket issued;
/// - `GET /auth/{id}/finish?ticket=…` — first-party again (SameSite=Lax cookies present): checks the
///   browser binding, links or signs in, and hands off to the completion for the flow's platform.
///
/// Every failure lands on the sign-in page with a plain message and an audit entry.
struct ProviderRoutes: Sendable {
    let registry: ProviderRegistry
    let flows: ProviderFlowStore
    let linker: ExternalIdentityService
    /// The layout, the session reader and the shared screens (the sign-in and account pages).
    let context: PageContext
    /// The account page's unlink (the admin API's too, through `AccountAdministration`).
    let unlinking: IdentityUnlinking
    /// Completion per platform; the native hand-off adds `.native`.
    var completions: [ProviderFlow.Platform: any ProviderCompletion]
    /// The public URL without a trailing slash (redirect URIs are built from it).
    let publicBase: String
    /// Linking needs a sign-in at most this old (`providers.link_max_sign_in_age_seconds`).
    var linkMaxSignInAge: TimeInterval = 600

    var reader: WebSessionReader { context.reader }
    var flowCookieName: String { reader.cookies.name("flow") }

    func register(into router: inout Router) {
        for provider in registry.providers {
            let id = provider.id
            router.post("/auth/\(id)") { request async throws in try await start(provider, request, link: false) }
            router.post("/auth/\(id)/link") { request async throws in try await start(provider, request, link: true) }
            router.get("/auth/\(id)/callback") { request async throws in try await callback(provider, request, request.query) }
            router.post("/auth/\(id)/callback") { request async throws in
                let form: URLEncodedForm
                do { form = try request.form() } catch { form = URLEncodedForm() }
                return try await callback(provider, request, form)
            }
            router.get("/auth/\(id)/finish") { request async throws in try await finish(provider, request) }
        }
        router.post("/account/identities/unlink") { request async throws in try await unlink(request) }
    }

    func redirectURI(_ id: String) -> String { publicBase + "/auth/\(id)/callback" }

    // MARK: Start

    func start(_ provider: any SignInProvider, _ request: Request, link: Bool) async throws -> Response {
        let (form, web) = try await reader.postedForm(request)
        let platform = try form["platform"].map { raw throws(HTTPError) in
            guard let parsed = ProviderFlow.Platform(rawValue: raw) else { throw HTTPError(.badRequest, "platform must be web or native.") }
            return parsed
        } ?? .web
        guard let completion = completions[platform] else { throw HTTPError(.badRequest, "Signing in from the app is not available yet.") }
        let native = try await completion.prepare(form)
        var intent = ProviderFlow.Intent.signIn
        if link {
            // From the app, the system browser has no session: the web view's link ticket names the account (the
            // ticket was minted under the same recent-sign-in and standing rules, in the web view).
            if platform == .native, let userId = native?["link_user"] {
                intent = .link(userId: userId)
            } else {
                guard let active = web.active else { throw HTTPError(.unauthorized, "Your session has ended. Sign in again.") }
                // Adding a way in is as sensitive as the password: a session left open (or stolen) must not be
                // enough, so the sign-in behind it must be recent.
                if context.clock.now().timeIntervalSince(active.session.createdAt) > linkMaxSignInAge {
                    return .redirect(to: "/sign-in?reauth=1&return_to=" + PercentDecoding.encode("/account"))
                }
                do { try AccountStanding.requireLinking(active.user) } catch {
                    return try await context.accountPage(web: web, active: active, error: error.text(web.texts), status: context.status(for: error))
                }
                intent = .link(userId: active.user.id)
            }
        } else if native?["link_user"] != nil {
            throw HTTPError(.badRequest, "A link request must start at the link form.")
        }
        return try await begin(provider, request, web: web, intent: intent, platform: platform, native: native,
                               returnTo: link ? "/account" : ReturnPath.validated(form["return_to"]))
    }

    /// Stores the flow, binds it to this browser and redirects to the provider (the part of `start`
    /// after the form checks; the `/oauth/authorize` provider hint enters here too).
    func begin(_ provider: any SignInProvider, _ request: Request, web: WebSession, intent: ProviderFlow.Intent,
               platform: ProviderFlow.Platform, native: [String: String]?, returnTo: String?) async throws -> Response {
        // One binding value per browser, reused across flows so two tabs do not invalidate each other.
        let binding = request.cookies[flowCookieName].flatMap { $0.utf8.count == 43 ? $0 : nil } ?? SecureRandom.token(byteCount: 32)
        let flow = ProviderFlow(provider: provider.id, intent: intent, platform: platform, redirectURI: redirectURI(provider.id),
                                returnTo: returnTo, browserBinding: SHA256.hex(binding), native: native)
        let location: URL
        do {
            let state = try await flows.start(flow)
            location = try await provider.authorizationURL(state: state, flow: flow)
        } catch {
            return await failure(Self.providerError(error), provider: provider.id, request: request, web: web, returnTo: flow.returnTo)
        }
        var response = Response.redirect(to: location.absoluteString)
        response.setCookie(try SetCookie(name: flowCookieName, value: binding, maxAge: Int(ProviderFlowStore.flowLifetime), path: reader.cookies.path,
                                         secure: reader.cookies.secure, httpOnly: true, sameSite: .lax))
        return response
    }

    // MARK: Callback

    func callback(_ provider: any SignInProvider, _ request: Request, _ parameters: URLEncodedForm) async throws -> Response {
        var values: [String: String] = [:]
        for (key, value) in parameters.pairs where values[key] == nil && key.utf8.count <= 64 && value.utf8.count <= 16_384 {
            values[key] = value
        }
        let web = try await reader.read(request)
        // The flow is spent by any callback carrying its state, success or not: a callback cannot be replayed.
        guard let state = values["state"], let flow = try await flows.consume(state: state), flow.provider == provider.id else {
            let error: ProviderError = values["state"] == nil && values["error"] != nil ? .cancelled : .invalidState
            return await failure(error, provider: provider.id, request: request, web: web, returnTo: nil)
        }
        let profile: ExternalProfile
        do { profile = try await provider.completeSignIn(callback: values, flow: flow) } catch {
            return await failure(Self.providerError(error), provider: provider.id, request: request, web: web, returnTo: flow.returnTo,
                                 flow: flow)
        }
        let ticket = try await flows.issueTicket(flow: flow, profile: profile)
        return .redirect(to: "/auth/\(provider.id)/finish?ticket=" + ticket)
    }

    // MARK: Finish

    func finish(_ provider: any SignInProvider, _ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        guard let value = request.query["ticket"], let ticket = try await flows.redeemTicket(value), ticket.provider == provider.id else {
            return await failure(.invalidState, provider: provider.id, request: request, web: web, returnTo: nil)
        }
        // Only the browser that started the flow may finish it (no login CSRF, no linking into someone else's account).
        guard let cookie = request.cookies[flowCookieName], let binding = ticket.flow.browserBinding,
              ConstantTime.equals(SHA256.hex(cookie), binding) else {
            return await failure(.invalidState, provider: provider.id, request: request, web: web, returnTo: ticket.flow.returnTo,
                                 flow: ticket.flow)
        }
        // A link from the app runs in the system browser, which has no session: the web view's link ticket
        // (spent at the start) stands for it.
        var signedInUserId = web.user?.id
        if ticket.flow.platform == .native, case .link(let userId) = ticket.flow.intent { signedInUserId = userId }
        switch try await linker.resolve(ticket.identity, linkTo: ticket.linkUserId, signedInUserId: signedInUserId,
                                        context: request.clientContext) {
        case .signIn(let user, _):
            await context.audit.record(.signInSucceeded, userId: user.id, context: request.clientContext, details: ["method": provider.id])
            guard let completion = completions[ticket.flow.platform] else { throw HTTPError(.badRequest, "This sign-in cannot be completed here.") }
            return try await completion.complete(user: user, ticket: ticket, request: request, web: web)
        case .linked(let user):
            if ticket.flow.platform == .native, let completion = completions[.native] {
                return try await completion.complete(user: user, ticket: ticket, request: request, web: web)
            }
            return .redirect(to: "/account?notice=identity-linked")
        case .refused(let refusal, let userId, let email):
            let message = refusal.text(label: context.providers.label(provider.id), email: email, web.texts)
            let reason = refusal.reason
            await context.audit.record(.providerSignInFailed, userId: userId, context: request.clientContext,
                                     details: ["provider": provider.id, "reason": reason])
            // From the app, the answer goes back to the app (the system browser closes), not to a page there.
            if let completion = completions[ticket.flow.platform],
               let response = await completion.fail(reason: reason, message: message, flow: ticket.flow) {
                return response
            }
            return context.signInPage(web: web, email: email ?? "", returnTo: ticket.flow.returnTo, error: message,
                                    status: refusal.status == .conflict ? .conflict : .badRequest)
        }
    }

    // MARK: Unlink

    func unlink(_ request: Request) async throws -> Response {
        let (form, web, active) = try await reader.signedInForm(request)
        switch try await unlinking.unlink(userId: active.user.id, provider: form["provider"] ?? "", subject: form["subject"] ?? "",
                                          context: request.clientContext) {
        case .unlinked:
            return .redirect(to: "/account?notice=identity-unlinked")
        case .lastMethod:
            return try await context.accountPage(web: web, active: active, error: web.texts["error.only_method"],
                                                 status: .conflict)
        case .notLinked:
            throw HTTPError(.notFound, "That sign-in method is not linked to your account.")
        }
    }

    // MARK: Failures

    /// The sign-in page with the error's message, and an audit entry; never a 500.
    func failure(_ error: ProviderError, provider: String, request: Request, web: WebSession, returnTo: String?,
                 flow: ProviderFlow? = nil) async -> Response {
        await context.audit.record(.providerSignInFailed, userId: web.user?.id, context: request.clientContext,
                                 details: ["provider": provider, "reason": error.auditReason])
        // A native flow reports back to the app (which closes the system browser and shows the message).
        if let flow, let completion = completions[flow.platform],
           let response = await completion.fail(reason: error.auditReason, message: web.texts.translating(error.userMessage), flow: flow) {
            return response
        }
        let status: HTTPStatus = switch error {
        case .unavailable, .timedOut, .misconfigured: .serviceUnavailable
        default: .badRequest
        }
        return context.signInPage(web: web, email: "", returnTo: returnTo, error: web.texts.translating(error.userMessage), status: status)
    }

    static func providerError(_ error: any Error) -> ProviderError {
        if let error = error as? ProviderError { return error }
        if error is CancellationError { return .timedOut }
        return .unavailable(String(describing: error))
    }
}
