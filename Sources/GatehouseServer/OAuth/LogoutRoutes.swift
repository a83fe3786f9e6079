import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// `/oauth/logout`: OpenID Connect RP-initiated logout. With a valid `id_token_hint` for the signed-in
/// user the session ends at once; otherwise the user confirms. The redirect back goes only to a
/// `post_logout_redirect_uri` registered by the client the hint (or `client_id`) names.
struct LogoutRoutes: Sendable {
    let registry: ClientRegistry
    /// The layout, the session reader, the sessions, the audit trail and the clock every page route shares.
    let context: PageContext
    let keys: SigningKeyRing
    let settings: OAuthSettings

    var sessions: SessionService { context.sessions }
    var reader: WebSessionReader { context.reader }
    var layout: PageLayout { context.layout }
    var audit: AuditTrail { context.audit }
    var clock: IdentityClock { context.clock }

    func register(into router: inout Router) {
        router.get("/oauth/logout") { request async throws in try await logout(request, parameters: request.query, confirmed: false) }
        router.post("/oauth/logout") { request async throws in
            let form = try request.form()
            let confirmed = form["confirm"] == "yes"
            if confirmed { try reader.requireCSRF(form, try await reader.read(request)) }
            return try await logout(request, parameters: form, confirmed: confirmed)
        }
    }

    private func logout(_ request: Request, parameters: URLEncodedForm, confirmed: Bool) async throws -> Response {
        let web = try await reader.read(request)
        var hintClaims: IDTokenHint.Reading?
        if let hint = parameters["id_token_hint"] {
            // Only an ID token of ours (never an access token, which names the same subject).
            hintClaims = try await IDTokenHint(settings: settings, keys: keys, clock: clock).read(hint)
            if hintClaims == nil { throw HTTPError(.badRequest, "The id_token_hint is not a valid ID token from this server.") }
        }
        let clientID = hintClaims?.audience.first ?? parameters["client_id"]
        if let hinted = hintClaims?.audience.first, let given = parameters["client_id"], hinted != given {
            throw HTTPError(.badRequest, "client_id does not match the id_token_hint.")
        }
        var destination: String?
        if let redirect = parameters["post_logout_redirect_uri"] {
            guard let clientID, let client = try await registry.find(id: clientID), client.postLogoutRedirectURIs.contains(redirect) else {
                throw HTTPError(.badRequest, "The post_logout_redirect_uri is not registered for this application.")
            }
            destination = AuthorizationService.redirectWithState(redirect, state: parameters["state"])
        }
        let hintMatches = hintClaims?.subject != nil && hintClaims?.subject == web.user?.id
        if let active = web.active, let token = web.token {
            guard confirmed || hintMatches else { return confirmationPage(parameters, web: web) }
            try await sessions.end(token: token)
            await audit.record(.signOut, userId: active.user.id, context: request.clientContext,
                               details: ["via": "oidc_logout", "client_id": clientID ?? ""])
        }
        var response = destination.map { Response.redirect(to: $0) } ?? Response.redirect(to: "/sign-in?signed_out=1")
        // Only a browser that presented a session cookie gets the clearing one.
        if request.cookies[reader.cookies.sessionCookie] != nil { response.setCookie(reader.cookies.clearSession) }
        return response
    }

    private func confirmationPage(_ parameters: URLEncodedForm, web: WebSession) -> Response {
        let hidden = parameters.pairs.filter { ["id_token_hint", "post_logout_redirect_uri", "state", "client_id"].contains($0.key) }
            .map { PageLayout.hidden($0.key, $0.value) }.joined()
        let t = web.texts
        let response = Response.html(layout.render(title: t["logout.title"], body: """
            <p>\(t("logout.question", ["product": layout.branding.productName, "email": web.user?.email ?? ""]))</p>
            <form method="post" action="/oauth/logout"><input type="hidden" name="csrf_token" value="\(reader.token(for: web))">\(hidden)
            <input type="hidden" name="confirm" value="yes"><button type="submit">\(t["layout.nav.sign_out"])</button></form>
            <p><a href="/account">\(t["logout.stay"])</a></p>
            """, texts: t, signedIn: true, csrf: reader.token(for: web)))
        return response
    }
}
