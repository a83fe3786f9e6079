import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The server side of native apps (flow F2 and helpers):
/// - `GET /native/start` — opened in the system browser: a tiny page that continues into the provider
///   sign-in with `platform=native` (auto-submitted by a script, or by its visible button without JS);
/// - `POST /native/confirm` — the system browser's "Continue to <app>?" answer (custom-scheme apps);
/// - `GET /native/redeem?token=…` — visited in the app's web view: a page (no side effect) whose script
///   posts the verifier this origin holds; `POST /native/redeem` (CSRF token, same Origin) spends the
///   hand-off token, starts the web view's session and 303s to the pending `return_to` (typically the
///   product's `/oauth/authorize`, which continues into the product's callback);
/// - `POST /native/link-ticket` — the signed-in web view asks to link a provider from the system browser
///   (the ticket is bound to the challenge of the verifier the web view keeps; the link is written at the
///   redeem, in that web view);
/// - `GET /native/session`, `POST /native/sign-out` — JSON for the app's launch check and sign-out;
/// - `/configurations/{ios,android}_v1.json`, the bridge and Turbo adapter scripts, and the app-site
///   association files.
struct NativeRoutes: Sendable {
    let apps: NativeAppDirectory
    let handoffs: HandoffTokens
    let confirmations: HandoffConfirmations
    /// The layout, the session reader, the sessions, the audit trail and the clock every page route shares.
    let context: PageContext
    /// The redeem's use case: a sign-in here, or a finished link.
    let completion: HandoffCompletion
    let pathConfiguration: PathConfiguration
    let associations: AppSiteAssociations
    let enabledProviders: [String]
    /// `scheme://host[:port]` of the public URL: state-changing posts from any other Origin are refused.
    let publicOrigin: String
    /// Linking needs a sign-in at most this old (`providers.link_max_sign_in_age_seconds`), from the app too.
    let linkMaxSignInAge: TimeInterval

    var sessions: SessionService { context.sessions }
    var reader: WebSessionReader { context.reader }
    var layout: PageLayout { context.layout }
    var audit: AuditTrail { context.audit }
    var clock: IdentityClock { context.clock }

    func register(into router: inout Router) {
        router.get("/native/start") { request async throws in try await start(request) }
        router.get("/native/redeem") { request async throws in try await redeemPage(request) }
        router.post("/native/redeem") { request async throws in try await redeem(request) }
        router.post("/native/confirm") { request async throws in try await confirm(request) }
        router.post("/native/link-ticket") { request async throws in try await linkTicket(request) }
        router.get("/native/callback") { request in
            // A claimed https callback the system did not hand to the app (app not installed) lands here.
            let t = layout.languages.texts(for: request)
            return Response.html(layout.render(title: t["native.return_title"], body: "<p>\(t["native.return_body"])</p>", texts: t))
        }
        router.get("/native/session", head: .servedByGet) { request async throws in try await status(request) }
        router.post("/native/sign-out") { request async throws in try await signOut(request) }
    }

    /// The documents an app or the system fetches and may cache: path configurations and app-site associations
    /// (registered outside the no-store group).
    func registerDocuments(into router: inout Router) {
        for platform in ["ios", "android"] {
            let document = pathConfiguration.document(platform: platform)
            router.get("/configurations/\(platform)_v1.json") { _ in
                var response = Response.json(bytes: document)
                response.headers.set("Cache-Control", "public, max-age=300")
                return response
            }
            let mergeable = pathConfiguration.mergeableRules(platform: platform)
            router.get("/configurations/\(platform)_v1_rules.json") { _ in
                var response = Response.json(bytes: mergeable)
                response.headers.set("Cache-Control", "public, max-age=300")
                return response
            }
        }
        associations.register(into: &router)
    }

    // MARK: System browser

    private func start(_ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        guard let provider = request.query["provider"], enabledProviders.contains(provider) else {
            throw HTTPError(.badRequest, "Unknown or disabled provider.")
        }
        guard let app = try await apps.app(request.query["app"]) else {
            throw HTTPError(.badRequest, "This app is not registered for signing in.")
        }
        guard let challenge = request.query["challenge"], HandoffTokens.isValidChallenge(challenge) else {
            throw HTTPError(.badRequest, "The challenge must be the base64url SHA-256 of the app's verifier.")
        }
        guard let callback = app.callback(named: request.query["callback"]) else {
            throw HTTPError(.badRequest, "This callback is not registered for the app.")
        }
        let link = request.query["link"].flatMap { $0.utf8.count == 43 ? $0 : nil }
        let returnTo = ReturnPath.validated(request.query["return_to"])
        var fields = [("csrf_token", reader.token(for: web)), ("platform", "native"), ("app", app.clientID), ("challenge", challenge),
                      ("callback", callback)]
        if let returnTo, link == nil { fields.append(("return_to", returnTo)) }
        if let link { fields.append(("link", link)) }
        let hidden = fields.map { PageLayout.hidden($0.0, $0.1) }.joined()
        let action = "/auth/\(provider)" + (link == nil ? "" : "/link")
        let t = web.texts
        var response = Response.html(layout.render(title: t["native.start_title"], body: """
            <p>\(t(link == nil ? "native.start_sign_in" : "native.start_link", ["app": app.name, "provider": provider.capitalized]))</p>
            <form method="post" action="\(action)" id="native-start">\(hidden)
            <button type="submit">\(t("native.continue_with", ["provider": provider.capitalized]))</button></form>
            <script type="module" src="/assets/native-start.js"></script>
            """, texts: t))
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        return response
    }

    private func confirm(_ request: Request) async throws -> Response {
        let (form, web) = try await reader.postedForm(request)
        // Exactly one decision: the clicked button's. Anything else is not a browser submitting this form.
        let decisions = form.pairs.filter { $0.0 == "decision" }.map(\.1)
        guard decisions.count == 1, ["continue", "cancel"].contains(decisions[0]) else {
            throw HTTPError(.badRequest, "Choose Continue or Cancel.")
        }
        guard let pending = try await confirmations.take(form["confirmation"] ?? "") else {
            return errorPage("This sign-in has expired or was already answered. Start again in the app.", request, status: .badRequest)
        }
        let cookie = request.cookies[reader.cookies.name("flow")]
        guard let cookie, ConstantTime.equals(SHA256.hex(cookie), pending.browserBinding) else {
            return errorPage("This sign-in was started in another browser. Start again in the app.", request, status: .forbidden)
        }
        guard let app = try await apps.app(pending.appID) else {
            return errorPage("This app is no longer registered for signing in.", request, status: .badRequest)
        }
        guard decisions[0] == "continue" else {
            await audit.record(.signInFailed, userId: pending.userId, context: request.clientContext,
                               details: ["via": "native_handoff", "reason": "user_cancelled", "app": app.clientID])
            return NativeHandoffCompletion.redirect(app.callbackURL([("error", "access_denied"),
                                                                     ("error_description", "You cancelled signing in.")],
                                                                    callback: pending.callback))
        }
        let token = try await handoffs.mint(userId: pending.userId, appID: app.clientID, challenge: pending.challenge,
                                            authMethods: pending.methods, returnTo: pending.returnTo, link: pending.link)
        return NativeHandoffCompletion.redirect(app.callbackURL([("token", token)], callback: pending.callback))
    }

    // MARK: Web view

    private func redeemPage(_ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        guard let token = request.query["token"], token.utf8.count == 43 else {
            return errorPage(HandoffTokens.Failure.invalidToken.message, request, status: .badRequest)
        }
        let app = request.query["app"].map { PageLayout.hidden("app", $0) } ?? .empty
        let t = web.texts
        var response = Response.html(layout.render(title: t["native.redeem_title"], body: """
            <p id="redeem-working" class="muted">\(t["native.redeem_working"])</p>
            <p id="redeem-unbound" class="notice error" role="alert" hidden>\(t["native.redeem_unbound"])</p>
            <form method="post" action="/native/redeem" data-gatehouse-redeem>
            <input type="hidden" name="csrf_token" value="\(reader.token(for: web))"><input type="hidden" name="token" value="\(token)">\(app)\
            <input type="hidden" name="verifier" value=""><noscript><p>\(t["native.redeem_needs_script"])</p></noscript></form>
            """, texts: t))
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        return response
    }

    private func redeem(_ request: Request) async throws -> Response {
        // Browsers send Origin on every POST; the redeem page makes sure it is this origin, not "null".
        guard request.headers["Origin"] == publicOrigin else {
            return errorPage("This sign-in can only be finished in the app.", request, status: .forbidden)
        }
        let (form, web) = try await reader.postedForm(request)
        switch try await completion.complete(token: form["token"] ?? "", verifier: form["verifier"] ?? "", appID: form["app"],
                                             signedInUserId: web.user?.id, sessionToken: web.token, context: request.clientContext) {
        case .signedIn(_, let session, let returnTo):
            var response = NativeHandoffCompletion.redirect(returnTo ?? ReturnPath.fallback)
            response.setCookie(reader.cookies.sessionCookie(token: session.token))
            return response
        case .linked(let returnTo):
            return NativeHandoffCompletion.redirect(returnTo ?? "/account")
        case .otherAccount:
            return errorPage("You are signed in to another account here. Sign in again and link from there.", request, status: .conflict)
        case .linkRefused(let refusal, let provider):
            return errorPage(refusal.message(label: provider.capitalized, email: nil), request, status: refusal.status)
        case .refused(let failure):
            return errorPage(failure.message, request, status: .badRequest)
        }
    }

    private func linkTicket(_ request: Request) async throws -> Response {
        // The web view's script shows the description on the page, so it is in the page's language.
        let t = layout.languages.texts(for: request)
        func refuse(_ status: HTTPStatus, _ code: OAuthError.Code, _ description: String) -> Response {
            return Response.json(["error": code.rawValue, "error_description": t.translating(description)], status: status)
        }
        guard request.headers["Origin"] == publicOrigin else {
            return refuse(.forbidden, .invalidRequest, "Cross-origin requests are not accepted here.")
        }
        guard let form = try? request.form() else { return refuse(.badRequest, .invalidRequest, "The form is not valid.") }
        let web = try await reader.read(request)
        guard let active = web.active else { return refuse(.unauthorized, .loginRequired, "Your session has ended. Sign in again.") }
        do { try reader.requireCSRF(form, web) } catch { return refuse(.forbidden, .invalidRequest, error.publicMessage) }
        guard let app = try await apps.app(form["app"]) else {
            return refuse(.badRequest, .invalidClient, "This app is not registered for signing in.")
        }
        // Only the holder of this challenge's verifier (this web view) can finish what the ticket starts.
        guard let challenge = form["challenge"], HandoffTokens.isValidChallenge(challenge) else {
            return refuse(.badRequest, .invalidRequest, "The challenge must be the base64url SHA-256 of the web view's verifier.")
        }
        // The same rules as "Link …" on the web: a recent sign-in, an account in standing.
        if clock.now().timeIntervalSince(active.session.createdAt) > linkMaxSignInAge {
            return refuse(.forbidden, .loginRequired, "Sign in again to link a new way of signing in.")
        }
        do { try AccountStanding.requireLinking(active.user) } catch {
            return refuse(.forbidden, .accessDenied, error.text(t))
        }
        let response = Response.json(["ticket": try await confirmations.mintLinkTicket(userId: active.user.id, appID: app.clientID,
                                                                                                 challenge: challenge)])
        return response
    }

    private func status(_ request: Request) async throws -> Response {
        // Session, user and linked providers in one statement: the app asks this at every launch.
        guard let token = reader.sessionToken(request),
              let resolved = try await sessions.resolveWithProviders(token: token) else {
            return Response.json(["signed_in": false], status: .unauthorized)
        }
        let (active, providers) = resolved
        // Written by GatehouseCrypto's JSON writer (sorted keys, no `name` when there is none): this is the
        // app's launch check, called often, and Foundation's JSONEncoder cost more than the lookups.
        var status: [String: JSONValue] = [
            "signed_in": .bool(true), "user_id": .string(active.user.id), "email": .string(active.user.email),
            "providers": .array(providers.map(JSONValue.string)),
            "has_password": .bool(active.user.passwordHash != nil),
        ]
        if let name = active.user.displayName { status["name"] = .string(name) }
        return Response.json(bytes: JSONValue.object(status).jsonBytes)
    }

    /// Ends the presented session. Refused (403 JSON) when a browser says the request comes from another
    /// origin or site — the app's own request (native code, or its web view on this origin) says neither —
    /// so no other page can sign the user out. The clearing cookie goes out only when
    /// a session cookie came in: a response never plants cookie headers on a client that had none.
    private func signOut(_ request: Request) async throws -> Response {
        if Self.isCrossSite(request, publicOrigin: reader.cookies.publicOrigin) {
            let refused = Response.json(["error": OAuthError.Code.invalidRequest.rawValue, "error_description": "Cross-site requests are not accepted here."],
                                        status: .forbidden)
            return refused
        }
        let web = try await reader.read(request)
        if let active = web.active, let token = web.token {
            try await sessions.end(token: token)
            await audit.record(.signOut, userId: active.user.id, context: request.clientContext, details: ["via": "native"])
        }
        let presented = request.cookies[reader.cookies.sessionCookie] != nil
        var response = Response.json(["signed_out": presented ? [reader.cookies.sessionCookie] : []] as [String: [String]])
        if presented { response.setCookie(reader.cookies.clearSession) }
        return response
    }

    /// `message`: English (a domain failure's), shown in the request's language.
    private func errorPage(_ message: String, _ request: Request, status: HTTPStatus) -> Response {
        let t = layout.languages.texts(for: request)
        let response = Response.html(layout.render(title: t["native.failed_title"], body: """
            \(PageLayout.notice(t.translating(message)))<p>\(t["native.failed_body"])</p>
            """, texts: t), status: status)
        return response
    }

    /// A foreign `Origin`, or `Sec-Fetch-Site` other than `same-origin`/`none`.
    static func isCrossSite(_ request: Request, publicOrigin: String) -> Bool {
        if let origin = request.headers["Origin"], origin != publicOrigin { return true }
        if let site = request.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" { return true }
        return false
    }
}
