import GatehouseHTTP

/// The shared page shell: one small stylesheet, no scripts, readable on a phone. Pages are ``HTML``
/// values: whatever `String` they interpolate is escaped, so no page can forget to.
struct PageLayout: Sendable {
    let demo: Bool
    /// The product's name, logo, palette and links: the page says whose sign-in it is.
    let branding: Branding

    /// Chooses the language of pages rendered without a ``WebSession`` (errors, native and OAuth pages).
    let languages: Languages

    /// `page`: the page's id (docs/templates.md), naming its block in the operator's templates.
    func render(title: String, body: HTML, texts t: Texts, signedIn: Bool = false, csrf: String? = nil, page: String? = nil) -> HTML {
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
        let templates = branding.templates
        if templates.layout != nil || page.flatMap({ templates.pages[$0] }) != nil {
            return templated(title: title, body: body, texts: t, banner: banner, nav: nav, signedIn: signedIn, page: page)
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

    /// The page through the operator's templates: the page's block (if any) around its content, then the
    /// layout (if any) around that; what has no template is rendered as built in.
    private func templated(title: String, body: HTML, texts t: Texts, banner: HTML, nav: HTML, signedIn: Bool, page: String?) -> HTML {
        let head: HTML = """
            <meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · \(branding.productName)</title><link rel="stylesheet" href="/assets/gatehouse.css">\(extraStylesheet)<meta name="gatehouse-page" content="1">
            <script src="/assets/gatehouse-turbo.js"></script><script src="/assets/gatehouse-bridge.js"></script>
            """
        var values: [String: Template.Value] = [
            "lang": .text(t.tag), "dir": .text(t.direction), "title": .text(title), "product_name": .text(branding.productName),
            "head": .html(head), "banner": .html(banner), "brand": .html(brandMark), "nav": .html(nav), "footer": .html(footer),
            "support_links": .list(branding.supportLinks.map { ["label": .text($0.label), "url": .text($0.url)] }),
            "signed_in": .flag(signedIn), "demo": .flag(demo), "page": .text(page ?? ""),
        ]
        var main = body
        if let page, let block = branding.templates.pages[page] {
            values["content"] = .html(body)
            main = block.render(values)
        }
        guard let layout = branding.templates.layout else {
            return """
                <!doctype html>
                <html lang="\(t.tag)" dir="\(t.direction)"><head>\(head)</head>
                <body>\(banner)<header>\(brandMark)\(nav)</header>
                <main><h1>\(title)</h1>
                \(main)
                </main>\(footer)</body></html>
                """
        }
        values["body"] = .html("<h1>\(title)</h1>\n\(main)")
        return layout.render(values)
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
