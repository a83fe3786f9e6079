"""One WKWebView played by a Chromium page target: it intercepts every document request before it
is sent (Fetch domain, request stage) and every document response before it is shown (response
stage), knows the navigation's kind (Page.frameRequestedNavigation: link, form, script; our own
`load`; a redirect keeps the kind of the navigation it continues, as WebKit's policy callback does),
and passes each to whichever navigation delegate is active — the cold-boot visit, the Session, or
none — exactly as hotwire-native-ios wires them (ColdBootVisit.swift, Session.swift).
"""
import json
import pathlib
import urllib.parse

JS = pathlib.Path(__file__).resolve().parent / "js"

# Chromium's navigation reasons → WKNavigationType.
NAVIGATION_TYPES = {
    "anchorClick": "linkActivated",
    "formSubmissionGet": "formSubmitted",
    "formSubmissionPost": "formSubmitted",
    "reload": "reload",
}


def host_of(url):
    return urllib.parse.urlsplit(url).hostname


def scheme_of(url):
    return urllib.parse.urlsplit(url).scheme


def without_fragment(url):
    return urllib.parse.urlsplit(url)._replace(fragment="").geturl()


def user_scripts(turbo_load_timeout_ms):
    shim = (JS / "webkit_shim.js").read_text()
    bridge = (JS / "native_bridge.js").read_text()
    turbo = (JS / "turbo_native.js").read_text().replace("__HOTWIRE_EMU_TURBO_LOAD_TIMEOUT__", str(int(turbo_load_timeout_ms)))
    # Document start: the message handlers, then bridge.js (atDocumentStart); turbo.js defers itself
    # to the end of parsing (atDocumentEnd).
    return shim + "\n" + bridge + "\n" + turbo


class WebView:
    """A page target in the app's browser context (one cookie store shared by all the app's web views,
    like WKWebsiteDataStore.default())."""

    def __init__(self, app, name):
        self.app = app
        self.name = name
        browser = app.browser
        created = browser.send("Target.createTarget", {"url": "about:blank", "browserContextId": app.context_id, "newWindow": True})
        self.target_id = created["targetId"]
        self.session_id = browser.send("Target.attachToTarget", {"targetId": self.target_id, "flatten": True})["sessionId"]
        self.url = "about:blank"
        self.generation = 0           # bumps at every new main-frame document
        self.bridge_ready = False
        self.bridge_registered = False
        self.pending_load = None      # URL of our own webView.load (navigation type "other")
        self.requested = {}           # (frameId, url) → navigation type, from frameRequestedNavigation
        self.request_types = {}       # Fetch request id / network id → navigation type (redirects inherit)
        self.network_urls = {}        # Network request id → (url, resource type, frame)
        self.navigation_delegate = None   # the Visit (cold boot) or the Session, set by Session
        self.session = None
        app.bind(self)
        send = self.send
        send("Page.enable")
        send("Network.enable")
        send("Runtime.enable")
        send("Runtime.addBinding", {"name": "__hotwireEmuTurbo"})
        send("Runtime.addBinding", {"name": "__hotwireEmuBridge"})
        send("Page.addScriptToEvaluateOnNewDocument", {"source": user_scripts(app.turbo_load_timeout_ms)})
        send("Network.setUserAgentOverride", {"userAgent": app.user_agent})
        send("Fetch.enable", {"patterns": [
            {"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"},
            {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"},
        ]})

    def __repr__(self):
        return self.name

    def send(self, method, params=None, wait=True, timeout=20):
        return self.app.browser.send(method, params, session_id=self.session_id, wait=wait, timeout=timeout)

    @property
    def main_frame(self):
        return self.target_id

    # Native API ------------------------------------------------------------------------------

    def load(self, url):
        """`webView.load(URLRequest(url:))`: a main-frame navigation of type "other"."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("http", "https") and not parts.path:
            url = parts._replace(path="/").geturl()   # as the browser will request it
        self.pending_load = url
        self.app.events.record("web_view_load", self.name, url=url)
        self.send("Page.navigate", {"url": url}, wait=False)

    def evaluate(self, expression, wait=True, await_promise=False):
        """`evaluateJavaScript`; returns the value, raises on a JavaScript exception. `await_promise`
        only from a test's thread (never the app's main thread)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": await_promise},
                           wait=wait)
        if not wait:
            return None
        if "exceptionDetails" in result:
            detail = result["exceptionDetails"]
            raise JavaScriptError(detail.get("exception", {}).get("description") or detail.get("text"))
        return result.get("result", {}).get("value")

    # Events (native thread) --------------------------------------------------------------------

    def on_event(self, method, params):
        handler = getattr(self, "_on_" + method.replace(".", "_"), None)
        if handler:
            handler(params)

    def _on_Page_frameRequestedNavigation(self, params):
        url, frame = params["url"], params["frameId"]
        kind = NAVIGATION_TYPES.get(params.get("reason"), "other")
        self.requested[(frame, without_fragment(url))] = kind
        if scheme_of(url) not in ("http", "https", "about", "data", "blob", "javascript"):
            # No network request follows for a custom scheme: decide the policy here.
            self.app.events.record("navigation", self.name, url=url, navigation_type=kind, main_frame=frame == self.main_frame, redirect=False)
            self._decide(url, kind, frame == self.main_frame, redirect=False, request_id=None)

    def _on_Fetch_requestPaused(self, params):
        request_id = params["requestId"]
        if "responseStatusCode" in params or "responseErrorReason" in params:
            return self._on_response(params)
        url = params["request"]["url"]
        frame = params.get("frameId")
        main = frame == self.main_frame
        redirect = bool(params.get("redirectedRequestId"))
        if redirect:
            kind = self.request_types.get(params["redirectedRequestId"]) or self.request_types.get(params.get("networkId"), "other")
        elif main and self.pending_load and without_fragment(self.pending_load) == without_fragment(url):
            kind = "other"
            self.pending_load = None
        else:
            kind = self.requested.pop((frame, without_fragment(url)), "other")
        self.request_types[request_id] = kind
        if params.get("networkId"):
            self.request_types[params["networkId"]] = kind
        self.app.events.record("navigation", self.name, url=url, navigation_type=kind, main_frame=main, redirect=redirect,
                               method=params["request"].get("method"), origin=params["request"].get("headers", {}).get("Origin"))
        self._decide(url, kind, main, redirect, request_id)

    def _decide(self, url, kind, main, redirect, request_id):
        delegate = self.navigation_delegate
        allow = True if delegate is None else delegate.decide_policy(self, url, kind, main, redirect)
        self.app.events.record("policy", self.name, url=url, navigation_type=kind, decision="allow" if allow else "cancel",
                               delegate=type(delegate).__name__ if delegate else None)
        if request_id is None:
            return
        if allow:
            self.send("Fetch.continueRequest", {"requestId": request_id}, wait=False)
        else:
            self.app.events.record("cancelled", self.name, url=url, navigation_type=kind, redirect=redirect)
            self.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"}, wait=False)

    def _on_response(self, params):
        request_id = params["requestId"]
        url = params["request"]["url"]
        status = params.get("responseStatusCode")
        main = params.get("frameId") == self.main_frame
        headers = {h["name"].lower(): h["value"] for h in params.get("responseHeaders") or []}
        is_redirect = status is not None and 300 <= status < 400 and "location" in headers
        self.app.events.record("response", self.name, url=url, status=status, main_frame=main, redirect=is_redirect,
                               error=params.get("responseErrorReason"))
        allow = True
        delegate = self.navigation_delegate
        if main and not is_redirect and delegate is not None and hasattr(delegate, "decide_response"):
            allow = delegate.decide_response(self, url, status)
        if allow:
            self.send("Fetch.continueRequest", {"requestId": request_id}, wait=False)
        else:
            self.app.events.record("cancelled", self.name, url=url, status=status, reason="response")
            self.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "Aborted"}, wait=False)

    def _on_Page_frameNavigated(self, params):
        frame = params["frame"]
        if frame.get("parentId"):
            return
        self.url = frame["url"]
        self.generation += 1
        self.bridge_ready = False
        self.bridge_registered = False
        self.app.events.record("page_shown", self.name, url=self.url)
        if host_of(self.url) and host_of(self.url) != self.app.start_host:
            self.app.events.record("web_view_left_app_host", self.name, url=self.url)

    def _on_Page_navigatedWithinDocument(self, params):
        if params.get("frameId") == self.main_frame:
            self.url = params["url"]
            self.app.events.record("url_changed", self.name, url=self.url)

    def _on_Network_requestWillBeSent(self, params):
        self.network_urls[params["requestId"]] = (params["request"]["url"], params.get("type"), params.get("frameId"))

    def _on_Network_responseReceived(self, params):
        if params.get("type") in ("Fetch", "XHR"):
            response = params["response"]
            self.app.events.record("fetch_response", self.name, url=response["url"], status=response["status"])

    def _on_Network_loadingFailed(self, params):
        url, kind, frame = self.network_urls.get(params["requestId"], (None, params.get("type"), None))
        if params.get("type") in ("Fetch", "XHR"):
            self.app.events.record("fetch_failed", self.name, url=url, error=params.get("errorText"),
                                   cors=(params.get("corsErrorStatus") or {}).get("corsError"), blocked=params.get("blockedReason"))
        elif params.get("type") == "Document" and frame == self.main_frame and params.get("errorText") != "net::ERR_ABORTED":
            delegate = self.navigation_delegate
            if delegate is not None and hasattr(delegate, "did_fail_provisional_navigation"):
                delegate.did_fail_provisional_navigation(self, url, params.get("errorText"))

    def _on_Runtime_consoleAPICalled(self, params):
        if params.get("type") in ("error", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.app.events.record("console", self.name, level=params["type"], text=text[:500])

    def _on_Runtime_exceptionThrown(self, params):
        detail = params.get("exceptionDetails", {})
        self.app.events.record("js_exception", self.name, text=(detail.get("exception", {}).get("description") or detail.get("text", ""))[:500])

    def _on_Runtime_bindingCalled(self, params):
        try:
            envelope = json.loads(params["payload"])
        except ValueError:
            return
        if params["name"] == "__hotwireEmuTurbo":
            self.session.did_receive_turbo_message(self, envelope["body"], envelope.get("href"))
        elif params["name"] == "__hotwireEmuBridge":
            self.app.bridge.did_receive(self, envelope["body"], envelope.get("href"))


class JavaScriptError(Exception):
    pass
