import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// The simulator's HTML: account pickers, auto-submitting `form_post` pages and error pages.
/// Plain forms only, so a test's HTTP client can complete them as easily as a browser.
enum SimulatorPages {
    /// Which extra checkboxes a provider's picker offers.
    struct PickerOptions {
        var privateRelay = false
        var unverifiedEmail = false
        var workspace = false
    }

    /// The account picker: email, name, provider flags, and the original request in hidden inputs.
    /// "Continue" posts `action=allow`, "Cancel" posts `action=cancel`.
    static func picker(provider: String, action: String, hidden: [(String, String)], options: PickerOptions,
                       prefillEmail: String = "", clientID: String) -> Response {
        let e = HTMLEscaping.escape
        var hiddenInputs = ""
        for (name, value) in hidden {
            hiddenInputs += #"<input type="hidden" name="\#(e(name))" value="\#(e(value))">"# + "\n"
        }
        var flags = ""
        if options.privateRelay {
            flags += checkbox("private_relay", "Hide my email (use a private relay address)")
        }
        if options.unverifiedEmail {
            flags += checkbox("unverified_email", "This email address is not verified")
        }
        if options.workspace {
            flags += checkbox("workspace", "Workspace account (the email's domain is a managed domain)")
        }
        let body = """
            <p>The application <strong>\(e(clientID))</strong> asks you to sign in. This is a simulator:
            any address works and no password is needed.</p>
            <form method="post" action="\(e(action))">
            \(hiddenInputs)<p><label for="email">Email</label><br>
            <input id="email" name="email" type="email" required autocomplete="email" value="\(e(prefillEmail))"></p>
            <p><label for="name">Name</label><br>
            <input id="name" name="name" type="text" autocomplete="name" placeholder="Ada Lovelace"></p>
            \(flags)<p><button type="submit" name="action" value="allow">Continue</button>
            <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button></p>
            </form>
            """
        return page(title: "Simulated \(provider)", body: body)
    }

    private static func checkbox(_ name: String, _ label: String) -> String {
        #"<p><label><input type="checkbox" name="\#(name)" value="true"> \#(HTMLEscaping.escape(label))</label></p>"# + "\n"
    }

    /// An error page, as the real providers show one instead of redirecting when the client or
    /// its redirect URI cannot be trusted.
    static func error(provider: String, code: String, message: String, status: HTTPStatus = .badRequest) -> Response {
        var response = page(title: "Simulated \(provider)",
                            body: "<p role=\"alert\"><strong>Error: \(HTMLEscaping.escape(code))</strong></p><p>\(HTMLEscaping.escape(message))</p>")
        response.status = status
        return response
    }

    /// The `response_mode=form_post` answer: a form that posts `fields` to `action` by itself, with a
    /// button for browsers without JavaScript. Its CSP allows exactly this inline script (by hash),
    /// whatever policy the host application applies elsewhere.
    static func autoPost(action: String, fields: [(String, String)]) -> Response {
        let e = HTMLEscaping.escape
        var inputs = ""
        for (name, value) in fields {
            inputs += #"<input type="hidden" name="\#(e(name))" value="\#(e(value))">"# + "\n"
        }
        let script = "document.forms[0].submit();"
        let scriptHash = Data(SHA256.hash(script)).base64EncodedString()
        let body = """
            <form method="post" action="\(e(action))">
            \(inputs)<noscript><button type="submit">Continue</button></noscript>
            </form>
            <script>\(script)</script>
            """
        var response = page(title: "Redirecting…", body: body)
        response.headers.set("Content-Security-Policy",
                             "default-src 'none'; script-src 'sha256-\(scriptHash)'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
        return response
    }

    private static func page(title: String, body: String) -> Response {
        var response = Response.html("""
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTMLEscaping.escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
            header{border-bottom:1px solid #999;margin-bottom:1rem}input[type=email],input[type=text]{width:100%;padding:.4rem}
            button{padding:.4rem 1rem;margin-right:.5rem}</style></head>
            <body><header><h1>\(HTMLEscaping.escape(title))</h1></header>
            <main>
            \(body)
            </main></body></html>
            """)
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}
