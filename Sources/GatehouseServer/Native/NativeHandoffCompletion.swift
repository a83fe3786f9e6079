import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// `platform=native` (F2): instead of signing the system browser in, the sign-in ends at the app's
/// callback. For a claimed https callback the hand-off token is minted at once; for a custom scheme —
/// which any app can claim, so whoever started the flow may not be the app it names (RFC 8252 §8.6) —
/// the system browser first asks "Continue to <app> as <user>?" (``NativeConfirmationRoutes``).
/// Failures of every kind (cancelled, refused, "an account with this email exists") go to the callback
/// as `error=…`, so the app closes the system browser and shows the message.
struct NativeHandoffCompletion: ProviderCompletion {
    let apps: NativeAppDirectory
    let handoffs: HandoffTokens
    let confirmations: HandoffConfirmations
    let reader: WebSessionReader
    let layout: PageLayout
    let userLabel: @Sendable (User) -> String

    func prepare(_ form: URLEncodedForm) async throws -> [String: String]? {
        guard let app = try await apps.app(form["app"]) else {
            throw HTTPError(.badRequest, "This app is not registered for signing in (unknown app or no callback scheme).")
        }
        guard let challenge = form["challenge"], HandoffTokens.isValidChallenge(challenge) else {
            throw HTTPError(.badRequest, "The challenge must be the base64url SHA-256 of the app's verifier.")
        }
        guard let callback = app.callback(named: form["callback"]) else {
            throw HTTPError(.badRequest, "This callback is not registered for the app.")
        }
        var native = ["app": app.clientID, "challenge": challenge, "callback": callback]
        if let ticket = form["link"], !ticket.isEmpty {
            guard let userId = try await confirmations.takeLinkTicket(ticket, appID: app.clientID) else {
                throw HTTPError(.badRequest, "This link request has expired. Start linking again from the app.")
            }
            native["link_user"] = userId
        }
        return native
    }

    func fail(reason: String, message: String, flow: ProviderFlow) async -> Response? {
        guard let app = try? await apps.app(flow.native?["app"]) else { return nil }
        // One code per kind of failure (`provider_error:access_denied` → `provider_error`); the message says the rest.
        let code = String(reason.prefix { $0 != ":" })
        var response = Response.redirect(to: app.callbackURL([("error", code), ("error_description", message)],
                                                             callback: flow.native?["callback"] ?? "scheme"))
        response.noStore()
        return response
    }

    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response {
        guard let native = ticket.flow.native, let app = try await apps.app(native["app"]), let challenge = native["challenge"],
              let callback = app.callback(named: native["callback"]) else {
            throw HTTPError(.badRequest, "This app is no longer registered for signing in.")
        }
        let link = native["link_user"] != nil
        let returnTo = link ? "/account?notice=identity-linked" : ReturnPath.validated(ticket.flow.returnTo)
        if NativeApp.isAssured(callback: callback) {
            let token = try await handoffs.mint(userId: user.id, appID: app.clientID, challenge: challenge, authMethods: [ticket.provider],
                                                returnTo: returnTo, link: link)
            return Self.redirect(app.callbackURL([("token", token)], callback: callback))
        }
        let pending = HandoffConfirmations.Pending(userId: user.id, appID: app.clientID, challenge: challenge, methods: [ticket.provider],
                                                   returnTo: returnTo, browserBinding: ticket.flow.browserBinding ?? "", callback: callback,
                                                   link: link)
        let id = try await confirmations.hold(pending)
        let t = web.texts
        let question = link ? t("native.link_question", ["provider": ticket.provider.capitalized, "app": app.name])
            : t("native.continue_question", ["app": app.name])
        var response = Response.html(layout.render(title: question, body: """
            <p>\(t.html("native.signed_in_as", ["user": "<strong>\(userLabel(user))</strong>", "app": "\(app.name)"]))</p>
            <p class="muted">\(t("native.only_if", ["app": app.name]))</p>
            <form method="post" action="/native/confirm" id="native-confirm">
            <input type="hidden" name="csrf_token" value="\(reader.token(for: web))"><input type="hidden" name="confirmation" value="\(id)">
            <button type="submit" name="decision" value="continue">\(t("native.continue", ["app": app.name]))</button>
            <button type="submit" name="decision" value="cancel" class="secondary">\(t["native.cancel"])</button></form>
            """, texts: t))
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        response.noStore()
        return response
    }

    static func redirect(_ location: String) -> Response {
        var response = Response.redirect(to: location)
        response.noStore()
        return response
    }
}
