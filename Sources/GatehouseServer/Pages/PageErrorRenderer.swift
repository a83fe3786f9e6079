import GatehouseHTTP

/// Renders errors as Gatehouse pages, or as JSON on the routes that speak JSON (and for clients that ask
/// for it), so an app calling `/native/session` or an OAuth client never gets an HTML page it cannot read.
struct PageErrorRenderer {
    let layout: PageLayout

    func render(_ error: HTTPError, _ request: Request) -> Response {
        // The admin API answers RFC 9457 problems everywhere under its prefix, unknown routes and methods included.
        if request.path == AdminRoutes.prefix || request.path.hasPrefix(AdminRoutes.prefix + "/") {
            var response = AdminProblem(status: error.status, title: error.status.reasonPhrase, detail: error.publicMessage).response
            for (name, value) in error.headers { response.headers.set(name, value) }
            return response
        }
        if Self.speaksJSON(request.path) { return Self.json(error, request) }
        if request.prefersJSON || request.path.hasPrefix("/native/") {
            return DefaultErrorRenderer.render(error, request)
        }
        let t = layout.languages.texts(for: request)
        let title = t.catalogue.messages["status.\(error.status.code)"] ?? t.translating(error.status.reasonPhrase)
        var response = Response.html(layout.render(title: title, body: """
            \(PageLayout.notice(t.translating(error.publicMessage)))
            <p><a href="/">\(t("error_page.back", ["product": layout.branding.productName]))</a></p><p class="muted">\(t("error_page.request", ["id": request.requestID]))</p>
            """, texts: t, page: "error"), status: error.status)
        for (name, value) in error.headers { response.headers.set(name, value) }
        response.noStore()
        return response
    }

    /// Machine endpoints: OAuth's back-channel endpoints, the native app's JSON calls, discovery and
    /// path configuration. `/oauth/authorize` and `/oauth/logout` are pages a browser shows.
    static func speaksJSON(_ path: String) -> Bool {
        if path.hasPrefix("/oauth/") { return path != "/oauth/authorize" && path != "/oauth/logout" }
        return ["/native/session", "/native/sign-out", "/native/apple"].contains(path)
            || path.hasPrefix("/.well-known/") || path.hasPrefix("/configurations/")
    }

    /// RFC 6749 §5.2 shape (`error`, `error_description`), which the native endpoints share.
    static func json(_ error: HTTPError, _ request: Request) -> Response {
        let code: String
        switch error.status.code {
        case 503: code = "temporarily_unavailable"
        case 500...: code = "server_error"
        case 401: code = "unauthorized"
        case 403: code = "access_denied"
        case 404: code = "not_found"
        case 429: code = "slow_down"
        default: code = "invalid_request"
        }
        var response = Response.json(["error": code, "error_description": error.publicMessage, "request_id": request.requestID],
                                     status: error.status)
        for (name, value) in error.headers { response.headers.set(name, value) }
        response.noStore()
        return response
    }
}
