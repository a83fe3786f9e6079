import GatehouseHTTP

/// The shared page shell: one small stylesheet, no scripts, readable on a phone. Pages are ``HTML``
/// values: whatever `String` they interpolate is escaped, so no page can forget to.
struct PageLayout: Sendable {
    let demo: Bool
    /// The product's name, logo, palette and links: the page says whose sign-in it is.
    var branding = Branding(productName: "Sign in")

    /// Chooses the language of pages rendered without a ``WebSession`` (errors, native and OAuth pages).
    var languages: Languages = .builtIn

    func render(title: String, body: HTML, texts t: Texts, signedIn: Bool = false, csrf: String? = nil) -> HTML {
        let banner: HTML = demo ? #"<div class="demo-banner" role="status">\#(t["layout.demo_banner"])</div>"# : .empty
        let nav: HTML
        if signedIn, let csrf {
            nav = """
                <nav><a href="/account">\(t["layout.nav.account"])</a>
                <form method="post" action="/sign-out" class="inline"><input type="hidden" name="csrf_token" value="\(csrf)">
                <button type="submit" class="link">\(t["layout.nav.sign_out"])</button></form></nav>
                """
        } else {
            nav = #"<nav><a href="/sign-in">\#(t["layout.nav.sign_in"])</a> <a href="/sign-up">\#(t["layout.nav.sign_up"])</a></nav>"#
        }
        return """
            <!doctype html>
            <html lang="\(t.tag)" dir="\(t.direction)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · \(branding.productName)</title><link rel="stylesheet" href="/assets/gatehouse.css">\(extraStylesheet)<meta name="gatehouse-page" content="1">
            <script src="/assets/gatehouse-turbo.js"></script><script src="/assets/gatehouse-bridge.js"></script></head>
            <body>\(banner)<header>\(brandMark)\(nav)</header>
            <main><h1>\(title)</h1>
            \(body)
            </main>\(footer)</body></html>
            """
    }

    /// The header's home link: the logo (its alternative text is the product's name) or the name.
    var brandMark: HTML {
        guard let source = branding.logoSource else { return #"<a class="brand" href="/">\#(branding.productName)</a>"# }
        return #"<a class="brand" href="/"><img src="\#(source)" alt="\#(branding.productName)"></a>"#
    }

    private var extraStylesheet: HTML {
        branding.extraCSS == nil ? .empty : #"<link rel="stylesheet" href="/assets/brand.css">"#
    }

    private var footer: HTML {
        guard !branding.supportLinks.isEmpty else { return .empty }
        let items = branding.supportLinks.map { link -> HTML in #"<li><a href="\#(link.url)">\#(link.label)</a></li>"# }
        return "<footer><ul>\(items)</ul></footer>"
    }

    static func notice(_ message: String?, kind: String = "error") -> HTML {
        guard let message, !message.isEmpty else { return .empty }
        let id: HTML = kind == "error" ? #" id="\#(errorID)""# : .empty
        return #"<p class="notice \#(kind)"\#(id) role="\#(kind == "error" ? "alert" : "status")">\#(message)</p>"#
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> HTML {
        #"<input type="hidden" name="\#(name)" value="\#(value)">"#
    }
}
