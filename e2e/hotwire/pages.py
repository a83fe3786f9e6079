"""A tiny page set on loopback for the emulator's self-tests: pages with and without real Turbo
(7.1.0 from the turbo-django package), redirects between two loopback host names (127.0.0.1 and
localhost are different hosts to the router), non-2xx pages, bridge pages and path configurations.
"""
import html
import importlib.util
import json
import pathlib
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def turbo_source():
    spec = importlib.util.find_spec("turbo")   # turbo-django; importing it would need Django settings
    path = pathlib.Path(spec.origin).parent / "static" / "turbo" / "js" / "turbo.min.js"
    return path.read_bytes()


# The web half of the bridge, written the way hotwire-native-bridge's Bridge (src/bridge.js) behaves:
# queue until setAdapter, then send. `?queue=0` posts straight to the handler instead (the mistake).
WEB_BRIDGE = r"""
(() => {
  const pending = [];
  let adapter = null, lastId = 0;
  const web = {
    setAdapter(a) { adapter = a; document.documentElement.dataset.bridgePlatform = a.platform;
                    this.adapterDidUpdateSupportedComponents(); pending.splice(0).forEach((m) => this.send(m)); },
    adapterDidUpdateSupportedComponents() { if (adapter) document.documentElement.dataset.bridgeComponents = adapter.supportedComponents.join(" "); },
    supportsComponent(c) { return adapter ? adapter.supportsComponent(c) : false; },
    send(message) {
      if (!adapter) { pending.push(message); return null; }
      if (!adapter.supportsComponent(message.component)) return null;
      const id = String(++lastId);
      adapter.receive({ id, component: message.component, event: message.event, data: message.data || {} });
      return id;
    },
    receive(message) { (window.bridgeReplies = window.bridgeReplies || []).push(message); },
  };
  window.HotwireNative = { web };
  document.dispatchEvent(new Event("web-bridge:ready"));
})();
"""


def page(title, body, turbo=False, head=""):
    script = '<script src="/turbo.js"></script>' if turbo else ""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>{script}{head}</head>
<body><h1>{html.escape(title)}</h1>{body}</body></html>""".encode()


class Pages:
    """`Pages()` serves on 127.0.0.1:<port>; `url(path)` and `other(path)` (same server as localhost)."""

    def __init__(self):
        self.turbo = turbo_source()
        self.path_configurations = {}
        self.requests = []
        pages = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                pages.requests.append(("GET", self.headers.get("Host"), self.path))
                pages.handle(self)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                pages.requests.append(("POST", self.headers.get("Host"), self.path))
                pages.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def other(self, path):
        return f"http://localhost:{self.port}{path}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def handle(self, h):
        parts = urllib.parse.urlsplit(h.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = parts.path

        def send(status, body=b"", content_type="text/html; charset=utf-8", headers=()):
            h.send_response(status)
            h.send_header("Content-Type", content_type)
            h.send_header("Content-Length", str(len(body)))
            h.send_header("Cache-Control", "no-store")
            for name, value in headers:
                h.send_header(name, value)
            h.end_headers()
            h.wfile.write(body)

        if path == "/turbo.js":
            return send(200, self.turbo, "application/javascript")
        if path == "/web-bridge.js":
            return send(200, WEB_BRIDGE.encode(), "application/javascript")
        if path.startswith("/configurations/"):
            document = self.path_configurations.get(path)
            if document is None:
                return send(404, b"{}", "application/json")
            return send(200, json.dumps(document).encode(), "application/json")
        if path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            return send(code, page(f"Status {code}", "<p>error page</p>", turbo=True))
        if path == "/redirect":
            # 302 to `to` (absolute, possibly the other host name).
            return send(302, b"", headers=[("Location", query["to"])])
        if path == "/form-redirect" and h.command == "POST":
            return send(303, b"", headers=[("Location", query["to"])])
        if path == "/cors-open":
            # A fetch to the other host is allowed when the page says so: not used for redirects.
            return send(200, page("CORS", "", turbo=True), headers=[("Access-Control-Allow-Origin", "*")])
        if path.startswith("/plain"):
            return send(200, page("Plain " + path, '<p id="plain">no Turbo here</p>'
                                  f'<a id="to-turbo" href="/turbo/b">to a Turbo page</a>'))
        if path.startswith("/late-turbo"):
            # Turbo arrives later than the document: the adapter waits for turbo:load.
            if query.get("mode") == "defer":
                return send(200, page("Deferred Turbo", '<p id="late">deferred</p>', head='<script defer src="/turbo.js"></script>'))
            delay = int(query.get("ms", "300"))
            body = ('<p id="late">late</p><script>setTimeout(() => { const s = document.createElement("script");'
                    f' s.src = "/turbo.js"; document.head.appendChild(s); }}, {delay});</script>')
            return send(200, page("Late Turbo", body))
        if path.startswith("/turbo/"):
            name = path.rsplit("/", 1)[1]
            links = "".join(f'<p><a id="{html.escape(i)}" href="{html.escape(t)}">{html.escape(i)}</a></p>'
                            for i, t in [
                                ("to-b", "/turbo/b"), ("to-plain", "/plain/x"), ("to-other-host", self.other("/turbo/c")),
                                ("to-404", "/status/404"), ("to-cross-redirect", "/redirect?to=" + urllib.parse.quote(self.other("/turbo/c"))),
                                ("to-mail", "mailto:someone@example.com"), ("to-app-scheme", "myapp://open")])
            form = ('<form id="native-plain-form" method="post" data-turbo="false" action="/form-redirect?to=/plain/y">'
                    '<button id="native-plain-submit">Plain natively</button></form>')
            form += (f'<form id="cross-form" method="post" action="/form-redirect?to={urllib.parse.quote(self.other("/turbo/d"))}">'
                    '<button id="cross-submit">Go</button></form>'
                    f'<form id="native-form" method="post" data-turbo="false" action="/form-redirect?to={urllib.parse.quote(self.other("/turbo/d"))}">'
                    '<button id="native-submit">Go natively</button></form>')
            return send(200, page(f"Turbo {name}", f'<p id="page-name">{html.escape(name)}</p>' + links + form, turbo=True))
        if path == "/bridge":
            # A page with (optionally) the queueing web library and a component that sends at once.
            queue = query.get("queue", "1") == "1"
            url_override = query.get("metadata")
            head = '<script src="/web-bridge.js"></script>' if queue else ""
            metadata = json.dumps(url_override) if url_override else "location.href"
            sender = ("window.HotwireNative.web.send({component: 'demo', event: 'connect', data: {metadata: {url: %s}}});" % metadata
                      if queue else
                      "window.webkit.messageHandlers.bridge.postMessage({id: '1', component: 'demo', event: 'connect', data: {metadata: {url: %s}}});" % metadata)
            body = f'<p id="bridge-page">bridge</p><script>{sender}</script>'
            return send(200, page("Bridge", body, turbo=True, head=head))
        if path == "/auth/start":
            # The system browser's page: sets a cookie in *its* profile, then hands back to the app.
            outcome = query.get("result", "token")
            target = "myapp://auth-callback?" + ("token=tok123" if outcome == "token" else "error=access_denied")
            if outcome == "https":
                # An https callback (ASWebAuthenticationSession.Callback.https): loopback, and never requested.
                target = f"https://127.0.0.1:{self.port}/app-callback?token=tok123"
            if outcome == "stay":
                return send(200, page("Provider", '<p id="provider">sign in here</p>'), headers=[("Set-Cookie", "system=1; Path=/")])
            return send(302, b"", headers=[("Location", target), ("Set-Cookie", "system=1; Path=/")])
        if path == "/redeem":
            ok = query.get("token") == "tok123" and query.get("verifier") == "v1"
            return send(303, b"", headers=[("Location", "/turbo/signed-in" if ok else "/turbo/refused")]
                        + ([("Set-Cookie", "app_session=1; Path=/")] if ok else []))
        if path == "/sign-in":
            body = ('<p id="sign-in-page">sign in</p><button id="sign-in">Sign in</button><script>'
                    'document.getElementById("sign-in").addEventListener("click", () => {'
                    f' window.HotwireNative.web.send({{component: "sign-in-with-oauth", event: "click", data: {{startPath: "/auth/start?result={html.escape(query.get("result", "token"))}",'
                    ' redeemPath: "/redeem?verifier=v1", metadata: {url: location.href}}});});</script>')
            return send(200, page("Sign in", body, turbo=True, head='<script src="/web-bridge.js"></script>'))
        if path == "/":
            return send(200, page("Home", '<a id="to-b" href="/turbo/b">b</a>', turbo=True))
        return send(404, page("Not found", ""))
