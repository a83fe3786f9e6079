import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Per-request web state: the signed-in session if any, and the CSRF binding for forms.
struct WebSession: Sendable {
    let active: ActiveSession?
    /// The raw session token from the cookie (valid only when `active` is set).
    let token: String?
    /// What CSRF tokens on this page are bound to.
    let csrfBinding: String
    /// A pre-session CSRF cookie to set, when the request had none.
    let newCSRFCookie: SetCookie?
    /// The page's messages in the reader's language (``Languages``).
    let texts: Texts

    var user: User? { active?.user }
}

/// Reads sessions and checks CSRF for the page routes.
struct WebSessionReader: Sendable {
    let sessions: SessionService
    let cookies: CookiePolicy
    let csrf: CSRFTokens
    /// Told of requests carrying a Gatehouse cookie twice (the request's id; never the values).
    let duplicateCookies: @Sendable (Request) -> Void
    /// Chooses each page's language.
    let languages: Languages

    /// The reader's texts: their saved choice, else what the request asks for.
    func texts(_ request: Request, _ user: User?) -> Texts {
        var texts = languages.texts(for: request, saved: user?.language)
        texts.timeZone = user?.timeZone
        return texts
    }

    func read(_ request: Request) async throws -> WebSession {
        if hasDuplicateCookies(request) { return fresh(request) }
        if let token = request.cookies.only(cookies.sessionCookie), let active = try await sessions.resolve(token: token) {
            return WebSession(active: active, token: token, csrfBinding: "s:" + active.session.idHash.hex, newCSRFCookie: nil,
                              texts: texts(request, active.user))
        }
        return signedOut(request)
    }

    /// The web state of a request without a valid session: bound to its pre-session CSRF cookie, or a fresh one.
    private func signedOut(_ request: Request) -> WebSession {
        if let existing = request.cookies.only(cookies.csrfCookie), existing.utf8.count == 43 {
            return WebSession(active: nil, token: nil, csrfBinding: "p:" + existing, newCSRFCookie: nil,
                              texts: texts(request, nil))
        }
        return fresh(request)
    }

    /// Signed out, bound to a new pre-session CSRF cookie: no form posted with this request's cookies passes.
    private func fresh(_ request: Request) -> WebSession {
        let fresh = SecureRandom.token(byteCount: 32)
        return WebSession(active: nil, token: nil, csrfBinding: "p:" + fresh, newCSRFCookie: cookies.csrfCookie(value: fresh),
                          texts: texts(request, nil))
    }

    /// ``read(_:)`` for the account page: a signed-in request also gets the page's lists, read with the
    /// session in one trip to the database. Without a valid session, exactly `read`.
    func readWithOverview(_ request: Request) async throws -> (web: WebSession, overview: AccountOverview?) {
        if hasDuplicateCookies(request) { return (fresh(request), nil) }
        if let token = request.cookies.only(cookies.sessionCookie), let resolved = try await sessions.resolveWithOverview(token: token) {
            return (WebSession(active: resolved.active, token: token, csrfBinding: "s:" + resolved.active.session.idHash.hex,
                               newCSRFCookie: nil, texts: texts(request, resolved.active.user)), resolved.overview)
        }
        return (signedOut(request), nil)   // the session was looked up already: not a second time
    }

    /// More than one session or CSRF cookie: under a path, a sibling host can plant a same-named cookie with a
    /// longer path, which the browser sends first. Such a request is signed out, whichever cookie is genuine.
    func hasDuplicateCookies(_ request: Request) -> Bool {
        guard request.cookies.isRepeated(cookies.sessionCookie) || request.cookies.isRepeated(cookies.csrfCookie) else { return false }
        duplicateCookies(request)
        return true
    }

    /// The session cookie when it was sent once and no Gatehouse cookie is repeated.
    func sessionToken(_ request: Request) -> String? {
        hasDuplicateCookies(request) ? nil : request.cookies.only(cookies.sessionCookie)
    }

    func token(for web: WebSession) -> String { csrf.token(for: web.csrfBinding) }

    /// Refuses a state-changing form whose CSRF token does not match this request's binding.
    func requireCSRF(_ form: URLEncodedForm, _ web: WebSession) throws(HTTPError) {
        guard web.newCSRFCookie == nil, csrf.isValid(form["csrf_token"], for: web.csrfBinding) else {
            throw HTTPError(.forbidden, "This form has expired or did not come from this site. Go back, reload the page and try again.")
        }
    }
}

extension WebSessionReader {
    /// The start of every page POST, in one place: the form parsed, the session read, the CSRF token checked.
    func postedForm(_ request: Request) async throws -> (form: URLEncodedForm, web: WebSession) {
        let form = try request.form()
        let web = try await read(request)
        try requireCSRF(form, web)
        return (form, web)
    }

    /// ``postedForm(_:)`` for a signed-in user: 401 when the session has ended.
    func signedInForm(_ request: Request) async throws -> (form: URLEncodedForm, web: WebSession, active: ActiveSession) {
        let form = try request.form()
        let web = try await read(request)
        guard let active = web.active else { throw HTTPError(.unauthorized, "Your session has ended. Sign in again.") }
        try requireCSRF(form, web)
        return (form, web, active)
    }
}

extension Response {
    /// Never stored by a browser or a proxy. Only for the error renderers, which answer every path (unmatched ones
    /// too); a route gets no-store from its group (`NoStoreMiddleware`, registered in `GatehouseApp`).
    mutating func noStore() { headers.set("Cache-Control", "no-store") }
}

extension Request {
    var clientContext: ClientContext { ClientContext(ip: remoteAddress, userAgent: headers["User-Agent"]) }
}
