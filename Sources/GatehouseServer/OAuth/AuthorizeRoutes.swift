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
    let reader: WebSessionReader
    let layout: PageLayout
    let keys: SigningKeyRing
    let settings: OAuthSettings
    let audit: AuditTrail
    let clock: IdentityClock
    /// `provider=…` on the request: straight to that provider instead of the sign-in page (nil: ignored).
    var providerHint: ProviderSignInHint?

    func register(into router: inout Router) {
        router.get("/oauth/authorize") { request async throws in
            try await authorize(request, parameters: request.query.pairs)
        }
        router.post("/oauth/authorize") { request async throws in
            try await authorize(request, parameters: try request.form().pairs)
        }
        router.post("/oauth/authorize/decision") { request async throws in
            let form = try request.form()
            let web = try await reader.read(request)
            try reader.requireCSRF(form, web)
            let parameters = form.pairs.filter { $0.key != "csrf_token" && $0.key != "decision" }
            let authorizationRequest: AuthorizationRequest
            do { authorizationRequest = try await parser.parse(Self.multimap(parameters)) } catch let failure as AuthorizationFailure {
                return failurePage(failure)
            }
            guard let active = web.active else { return signIn(parameters, loginHint: nil, reauth: false) }
            guard form["decision"] == "allow" else {
                await audit.record(.consentDenied, userId: active.user.id, context: request.clientContext,
                                   details: ["client_id": authorizationRequest.client.id])
                return .redirect(to: authorization.errorRedirect(OAuthError(.accessDenied, "The user declined."),
                                                                 redirectURI: authorizationRequest.redirectURI,
                                                                 state: authorizationRequest.state))
            }
            try await authorization.recordConsent(authorizationRequest, userId: active.user.id)
            await audit.record(.consentGranted, userId: active.user.id, context: request.clientContext,
                               details: ["client_id": authorizationRequest.client.id, "scope": authorizationRequest.scope.description])
            return .redirect(to: try await authorization.approve(authorizationRequest, userId: active.user.id,
                                                                 authTime: active.session.createdAt,
                                                                 authMethods: active.session.authMethods))
        }
    }

    private func authorize(_ request: Request, parameters: [(key: String, value: String)]) async throws -> Response {
        let authorizationRequest: AuthorizationRequest
        do { authorizationRequest = try await parser.parse(Self.multimap(parameters)) } catch let failure as AuthorizationFailure {
            return failurePage(failure)
        }
        let hintedProvider: String?
        do { hintedProvider = try providerHintParameter(parameters, authorizationRequest) } catch { return failurePage(error) }
        let web = try await reader.read(request)
        let now = clock.now()
        var signedIn = web.active
        if let active = signedIn, let hint = authorizationRequest.idTokenHint, try await hintSubject(hint) != active.user.id {
            signedIn = nil   // the client expects someone else: sign in again
        }
        var needsReauth = false
        if let active = signedIn {
            let authAge = now.timeIntervalSince(active.session.createdAt)
            if let maxAge = authorizationRequest.maxAge, authAge > Double(maxAge) { needsReauth = true }
            if let after = parameters.first(where: { $0.key == "gh_auth_after" }).flatMap({ Double($0.value) }),
               after <= now.timeIntervalSince1970, active.session.createdAt.timeIntervalSince1970 < after {
                needsReauth = true
            }
        }
        if authorizationRequest.prompt.contains("login") {
            // Ask for a fresh sign-in once: the way back no longer says prompt=login but requires a
            // session that started after now.
            var again = parameters.filter { $0.key != "prompt" && $0.key != "gh_auth_after" }
            again.append((key: "gh_auth_after", value: String(Int(now.timeIntervalSince1970))))
            if let hinted = hintedProvider, let response = try await startProvider(hinted, request: request, parameters: again) { return response }
            return signIn(again, loginHint: authorizationRequest.loginHint, reauth: true)
        }
        guard let active = signedIn, !needsReauth else {
            if authorizationRequest.prompt.contains("none") {
                return .redirect(to: authorization.errorRedirect(OAuthError(.loginRequired, "The user is not signed in."),
                                                                 redirectURI: authorizationRequest.redirectURI,
                                                                 state: authorizationRequest.state))
            }
            if let hinted = hintedProvider, let response = try await startProvider(hinted, request: request, parameters: parameters) {
                return response
            }
            return signIn(parameters, loginHint: authorizationRequest.loginHint, reauth: web.active != nil)
        }
        if try await authorization.needsConsent(authorizationRequest, userId: active.user.id) {
            if authorizationRequest.prompt.contains("none") {
                return .redirect(to: authorization.errorRedirect(OAuthError(.consentRequired, "The user has not consented yet."),
                                                                 redirectURI: authorizationRequest.redirectURI,
                                                                 state: authorizationRequest.state))
            }
            return consentPage(authorizationRequest, parameters: parameters, web: web)
        }
        return .redirect(to: try await authorization.approve(authorizationRequest, userId: active.user.id,
                                                             authTime: active.session.createdAt,
                                                             authMethods: active.session.authMethods))
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

    /// Starts the hinted provider's sign-in, coming back to this request without the hint (so a failed
    /// or cancelled provider sign-in ends on the normal sign-in page rather than looping).
    private func startProvider(_ id: String, request: Request, parameters: [(key: String, value: String)]) async throws -> Response? {
        let back = parameters.filter { $0.key != ProviderSignInHint.parameter }
        return try await providerHint?.start(id, request: request,
                                             returnTo: "/oauth/authorize?" + URLEncodedForm(pairs: back.map { ($0.key, $0.value) }).encoded)
    }

    /// The `sub` of an ID token we issued (expired ones too: the hint is about who, not when).
    private func hintSubject(_ hint: String) async throws -> String? {
        let verifier = JWTVerifier(allowedAlgorithms: [.es256, .rs256],
                                   rules: ClaimRules(issuers: [settings.issuer], audiences: nil, leeway: 366 * 86_400))
        return try? verifier.verify(hint, keys: try await keys.verificationKeys(), now: clock.now()).claims.string("sub")
    }

    private func signIn(_ parameters: [(key: String, value: String)], loginHint: String?, reauth: Bool) -> Response {
        let back = "/oauth/authorize?" + URLEncodedForm(pairs: parameters.map { ($0.key, $0.value) }).encoded
        var target = "/sign-in?return_to=" + PercentDecoding.encode(back)
        if let loginHint { target += "&login_hint=" + PercentDecoding.encode(loginHint) }
        if reauth { target += "&reauth=1" }
        return .redirect(to: target)
    }

    private func failurePage(_ failure: AuthorizationFailure) -> Response {
        switch failure {
        case .untrusted(let message):
            var response = Response.html(layout.render(title: "This sign-in link is not valid", body: """
                \(PageLayout.notice(message))
                <p>The application that sent you here is not set up correctly, so you were not sent back to it.</p>
                """), status: .badRequest)
            response.headers.set("Cache-Control", "no-store")
            return response
        case .redirect(let error, let redirectURI, let state):
            return .redirect(to: authorization.errorRedirect(error, redirectURI: redirectURI, state: state))
        }
    }

    private func consentPage(_ request: AuthorizationRequest, parameters: [(key: String, value: String)], web: WebSession) -> Response {
        let hidden = parameters.map { #"<input type="hidden" name="\#(h($0.key))" value="\#(h($0.value))">"# }.joined()
        let scopes = request.scope.values.map { "<li>\(h(Self.describe(scope: $0)))</li>" }.joined()
        var response = Response.html(layout.render(title: "Allow \(request.client.name)?", body: """
            <p><strong>\(h(request.client.name))</strong> wants to use your Gatehouse account (\(h(web.user?.email ?? ""))) to:</p>
            <ul id="scopes">\(scopes)</ul>
            <p class="muted">It will be sent back to \(h(request.redirectURI)). You can withdraw access at any time from your account page.</p>
            <form method="post" action="/oauth/authorize/decision">
            <input type="hidden" name="csrf_token" value="\(h(reader.token(for: web)))">\(hidden)
            <button type="submit" name="decision" value="allow">Allow</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
            </form>
            """, signedIn: true, csrf: reader.token(for: web)))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    static func describe(scope: String) -> String {
        switch scope {
        case Scope.openID: "know who you are"
        case Scope.profile: "see your name"
        case Scope.email: "see your email address"
        case Scope.offlineAccess: "stay signed in when you are not using it"
        default: "use \(scope)"
        }
    }

    static func multimap(_ pairs: [(key: String, value: String)]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for (key, value) in pairs { result[key, default: []].append(value) }
        return result
    }
}
