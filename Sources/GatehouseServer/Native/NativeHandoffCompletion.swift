import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// `platform=native` (F2): instead of signing the system browser in, the sign-in ends at the app's
/// callback. For a claimed https callback the hand-off token is minted at once; for a custom scheme —
/// which any app can claim, so whoever started the flow may not be the app it names (RFC 8252 §8.6) —
/// the system browser first asks "Continue to <app> as <user>?" (``NativeConfirmationRoutes``).
/// A link from the app goes the same way but writes nothing here: the token carries what the provider
/// proved, and the redeem links it only in a web view signed in to the link ticket's account.
/// Failures of every kind (cancelled, refused, "an account with this email exists") go to the callback
/// as `error=…`, so the app closes the system browser and shows the message.
struct NativeHandoffCompletion: ProviderCompletion {
    let apps: NativeAppDirectory
    let handoffs: HandoffTokens
    let confirmations: HandoffConfirmations
    let reader: WebSessionReader
    let layout: PageLayout
    let userLabel: @Sendable (User) -> String

    func prepare(_ form: URLEncodedForm) async throws -> NativeFlow? {
        do {
            return try await NativeFlow.start(app: form["app"], challenge: form["challenge"], callback: form["callback"],
                                              linkTicket: form["link"], apps: apps, tickets: confirmations).0
        } catch let refusal as NativeFlow.Refusal {
            throw HTTPError(.badRequest, refusal.message)
        }
    }

    func fail(code: String, message: String, flow: ProviderFlow) async -> Response? {
        guard let native = flow.native, let app = try? await apps.app(native.appID) else { return nil }
        return Response.redirect(to: app.callbackURL([("error", code), ("error_description", message)], callback: native.callback))
    }

    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response {
        let (native, app) = try await resolve(ticket.flow)
        let t = web.texts
        return try await handOff(userId: user.id, native: native, app: app, ticket: ticket, returnTo: ReturnPath.validated(ticket.flow.returnTo),
                                 link: nil, question: t("native.continue_question", ["app": app.name]), body: """
            <p>\(t.html("native.signed_in_as", ["user": "<strong>\(userLabel(user))</strong>", "app": "\(app.name)"]))</p>
            <p class="muted">\(t("native.only_if", ["app": app.name]))</p>
            """, web: web)
    }

    func holdLink(into userId: String, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response? {
        let (native, app) = try await resolve(ticket.flow)
        let t = web.texts
        // The provider account being added, so someone sent this link sees whose it would be.
        let account: HTML = ticket.identity.email.map { "<p><strong>\($0)</strong></p>" } ?? ""
        return try await handOff(userId: userId, native: native, app: app, ticket: ticket, returnTo: "/account?notice=identity-linked",
                                 link: ticket.identity,
                                 question: t("native.link_question", ["provider": ticket.identity.provider.capitalized, "app": app.name]), body: """
            \(account)<p class="muted">\(t("native.only_if", ["app": app.name]))</p>
            """, web: web)
    }

    private func resolve(_ flow: ProviderFlow) async throws -> (NativeFlow, NativeApp) {
        guard let native = flow.native, let app = try await apps.app(native.appID), app.callback(named: native.callback) != nil else {
            throw HTTPError(.badRequest, "This app is no longer registered for signing in.")
        }
        return (native, app)
    }

    /// The token at once for a claimed callback; otherwise the pending hand-off and its question.
    private func handOff(userId: String, native: NativeFlow, app: NativeApp, ticket: ProviderFlowStore.Ticket, returnTo: String?,
                         link: VerifiedExternalIdentity?, question: String, body: HTML, web: WebSession) async throws -> Response {
        let methods = [ticket.identity.provider]
        if NativeApp.isAssured(callback: native.callback) {
            let token = try await handoffs.mint(userId: userId, appID: app.clientID, challenge: native.challenge, authMethods: methods,
                                                returnTo: returnTo, link: link)
            return Self.redirect(app.callbackURL([("token", token)], callback: native.callback))
        }
        let pending = HandoffConfirmations.Pending(userId: userId, appID: app.clientID, challenge: native.challenge, methods: methods,
                                                   returnTo: returnTo, browserBinding: ticket.flow.browserBinding ?? "",
                                                   callback: native.callback, link: link)
        let id = try await confirmations.hold(pending)
        let t = web.texts
        var response = Response.html(layout.render(title: question, body: """
            \(body)
            <form method="post" action="/native/confirm" id="native-confirm">
            <input type="hidden" name="csrf_token" value="\(reader.token(for: web))"><input type="hidden" name="confirmation" value="\(id)">
            <button type="submit" name="decision" value="continue">\(t("native.continue", ["app": app.name]))</button>
            <button type="submit" name="decision" value="cancel" class="secondary">\(t["native.cancel"])</button></form>
            """, texts: t))
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        return response
    }

    static func redirect(_ location: String) -> Response {
        return Response.redirect(to: location)
    }
}
