import GatehouseHTTP

/// The shared page shell: one small stylesheet, no scripts, readable on a phone. Pages are ``HTML``
/// values: whatever `String` they interpolate is escaped, so no page can forget to.
struct PageLayout: Sendable {
    let demo: Bool

    func render(title: String, body: HTML, signedIn: Bool = false, csrf: String? = nil) -> HTML {
        let banner: HTML = demo
            ? #"<div class="demo-banner" role="status">Demo mode: providers are simulated and data is for testing only.</div>"#
            : .empty
        let nav: HTML
        if signedIn, let csrf {
            nav = """
                <nav><a href="/account">Account</a>
                <form method="post" action="/sign-out" class="inline"><input type="hidden" name="csrf_token" value="\(csrf)">
                <button type="submit" class="link">Sign out</button></form></nav>
                """
        } else {
            nav = #"<nav><a href="/sign-in">Sign in</a> <a href="/sign-up">Create account</a></nav>"#
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Gatehouse</title><link rel="stylesheet" href="/assets/gatehouse.css"><meta name="gatehouse-page" content="1">
            <script src="/assets/gatehouse-turbo.js"></script><script src="/assets/gatehouse-bridge.js"></script></head>
            <body>\(banner)<header><a class="brand" href="/">Gatehouse</a>\(nav)</header>
            <main><h1>\(title)</h1>
            \(body)
            </main></body></html>
            """
    }

    static func notice(_ message: String?, kind: String = "error") -> HTML {
        guard let message, !message.isEmpty else { return .empty }
        return #"<p class="notice \#(kind)" role="\#(kind == "error" ? "alert" : "status")">\#(message)</p>"#
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> HTML {
        #"<input type="hidden" name="\#(name)" value="\#(value)">"#
    }
}
