import GatehouseHTTP

/// Renders errors as Gatehouse pages (or JSON for clients that ask for it).
struct PageErrorRenderer {
    let layout: PageLayout

    func render(_ error: HTTPError, _ request: Request) -> Response {
        if request.prefersJSON || request.path.hasPrefix("/oauth/") || request.path.hasPrefix("/native/") {
            return DefaultErrorRenderer.render(error, request)
        }
        var response = Response.html(layout.render(title: error.status.reasonPhrase, body: """
            \(PageLayout.notice(error.publicMessage))
            <p><a href="/">Back to Gatehouse</a></p><p class="muted">Request \(h(request.requestID))</p>
            """), status: error.status)
        for (name, value) in error.headers { response.headers.set(name, value) }
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}
