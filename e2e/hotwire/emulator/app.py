"""HotwireApp: the whole emulated iOS app — Navigator, main and modal Sessions (each its own web
view, one shared cookie store), the bridge with its native components, path configuration,
SFSafariViewController, the system, and ASWebAuthenticationSession — on one "main thread".

CDP events are queued, in Chromium's order, onto that thread, which makes every decision the
native library would make and records it in `app.events`.
"""
import json
import queue
import threading
import time
import traceback
import urllib.parse

import requests

from .auth_session import AuthenticationCancelled, AuthenticationSession, AuthenticationSessionClosed
from .bridge import Bridge
from .events import EventLog
from .navigator import Navigator
from .path_configuration import PathConfiguration
from .session import Session
from .webview import WebView, host_of

IOS_USER_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 "
                  "(KHTML, like Gecko) Mobile/15E148")
SAFARI_USER_AGENT = IOS_USER_AGENT + " Version/18.0 Safari/604.1"
TURBO_LOAD_TIMEOUT_MS = 30000   # the library's value (turbo.js); tests may pass a shorter one


def hotwire_user_agent(application_prefix, component_names):
    """UserAgent.build: `<prefix> Hotwire Native iOS; Turbo Native iOS; bridge-components: [a b]`."""
    parts = [IOS_USER_AGENT]
    if application_prefix:
        parts.append(application_prefix)
    parts += ["Hotwire Native iOS;", "Turbo Native iOS;", f"bridge-components: [{' '.join(component_names)}]"]
    return " ".join(parts)


class HotwireApp:
    def __init__(self, browser, start_location, path_configuration=(), components=None, register_delay=0.0,
                 turbo_load_timeout_ms=TURBO_LOAD_TIMEOUT_MS, stall_timeout=None, application_prefix=None,
                 open_safari=False):
        self.browser = browser
        self.start_location = start_location
        self.start_host = host_of(start_location)
        self.events = EventLog()
        self.turbo_load_timeout_ms = turbo_load_timeout_ms
        self.stall_timeout = stall_timeout
        self.open_safari_pages = open_safari
        components = components if components is not None else {}
        self.user_agent = hotwire_user_agent(application_prefix, list(components))
        self.system_browser_user_agent = SAFARI_USER_AGENT
        self.path_configuration = PathConfiguration(path_configuration, self.events).load()
        self.bridge = Bridge(self, components, register_delay)
        self.navigator = Navigator(self)
        self.safari_pages = []
        self.system_urls = []
        self._queue = queue.Queue()
        self._by_session = {}
        self._auth_context = None
        self._safari_context = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="hotwire-main")
        self._closed = False
        self.context_id = browser.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
        browser.add_listener(self._listener)
        self._thread.start()
        self.main_session = Session(self, WebView(self, "main"), "main")
        self.modal_session = Session(self, WebView(self, "modal"), "modal")

    # The main thread -------------------------------------------------------------------------

    def bind(self, web_view):
        self._by_session[web_view.session_id] = web_view

    def _listener(self, method, params, session_id):
        web_view = self._by_session.get(session_id)
        if web_view is not None:
            self._queue.put((web_view.on_event, (method, params)))

    def call_soon(self, function, *args):
        self._queue.put((function, args))

    def run_on_main(self, function, *args, timeout=20):
        """Run on the app's main thread and wait for the result (for tests and components)."""
        done, box = threading.Event(), {}

        def call():
            try:
                box["value"] = function(*args)
            except Exception as error:
                box["error"] = error
            done.set()

        self.call_soon(call)
        if not done.wait(timeout):
            raise TimeoutError(f"main thread did not run {function}")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def _run(self):
        while True:
            function, args = self._queue.get()
            if function is None:
                return
            try:
                function(*args)
            except Exception:
                self.events.record("emulator_error", error=traceback.format_exc()[-2000:])

    # Launch and user actions -----------------------------------------------------------------

    def launch(self):
        """The app starts: Navigator.start routes the start location (a cold boot in the main session)."""
        self.call_soon(self.navigator.route, self.start_location)
        return self

    @property
    def visible_web_view(self):
        return self.navigator.active_session.web_view

    def evaluate(self, expression, web_view=None, await_promise=False):
        return (web_view or self.visible_web_view).evaluate(expression, await_promise=await_promise)

    def fetch_status(self, path, web_view=None):
        """What `fetch(path)` from the page answers (status), with the web view's cookies."""
        return self.evaluate(f"fetch({json.dumps(path)}, {{credentials: 'same-origin'}}).then((r) => r.status)",
                             web_view, await_promise=True)

    def current_url(self):
        return self.visible_web_view.url

    def wait_for_url(self, predicate, timeout=10):
        """Waits until `predicate(current_url())` holds and returns the URL. Turbo renders a redirected visit before it
        replaces the history entry with the final location (Visit.followRedirect after render), and the web view's URL
        follows that entry, so the page can show its content a moment before the URL says where it is."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            url = self.current_url()
            if predicate(url):
                return url
            time.sleep(0.05)
        raise AssertionError(f"web view URL {self.current_url()} did not change as expected within {timeout} s;"
                             f" events:\n{self.events.describe()}")

    def tap(self, selector, web_view=None):
        """A user's tap: trusted mouse events at the element's centre (a `linkActivated` navigation
        for a link, a form submission with its submitter for a button)."""
        web_view = web_view or self.visible_web_view
        box = web_view.evaluate(
            "(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()"
            % json.dumps(selector))
        if box is None:
            raise AssertionError(f"nothing to tap: {selector} on {web_view.url}")
        self.events.record("tap", web_view.name, selector=selector, url=web_view.url)
        for kind in ("mousePressed", "mouseReleased"):
            web_view.send("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1})

    def wait_for_page(self, predicate_js, timeout=15, web_view=None):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.evaluate(f"document.readyState !== 'loading' && !!({predicate_js})", web_view):
                    return
            except Exception:
                pass
            time.sleep(0.05)
        raise AssertionError(f"web view: {predicate_js} not true within {timeout} s; events:\n{self.events.describe()}")

    # Out of the web view -----------------------------------------------------------------------

    def open_safari(self, url):
        """SFSafariViewController: its own browser profile; opened only for inspection when asked."""
        self.safari_pages.append(url)
        if self.open_safari_pages:
            if self._safari_context is None:
                self._safari_context = self.browser.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
            self.browser.send("Target.createTarget", {"url": url, "browserContextId": self._safari_context}, wait=False)

    def open_system(self, url):
        """UIApplication.shared.open: recorded only."""
        self.system_urls.append(url)

    def auth_context_id(self):
        if self._auth_context is None:
            self._auth_context = self.browser.send("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
        return self._auth_context

    def start_authentication_session(self, url, callback_scheme=None, https_callback=None):
        """ASWebAuthenticationSession(url:callback:); call off the main thread, then `wait()`."""
        return AuthenticationSession(self, url, callback_scheme, https_callback)

    def cookies(self):
        return self.browser.send("Storage.getCookies", {"browserContextId": self.context_id}).get("cookies", [])

    def native_http_resolve(self, location):
        """JSFetchRecoveryHandler.resolve: a native GET (the web view's cookies) following redirects."""
        jar = requests.cookies.RequestsCookieJar()
        for cookie in self.cookies():
            jar.set(cookie["name"], cookie["value"], domain=cookie["domain"], path=cookie["path"])
        try:
            response = requests.get(location, cookies=jar, timeout=5, headers={"User-Agent": self.user_agent})
        except requests.RequestException as error:
            return ("request_failed", str(error))
        final = response.url
        if final == location:
            return ("no_redirect", None)
        if host_of(final) != host_of(location):
            return ("cross_origin_redirect", final)
        return ("same_origin_redirect", final)

    def close(self):
        if self._closed:
            return
        self._closed = True
        self.browser.remove_listener(self._listener)
        self._queue.put((None, ()))
        for context in (self.context_id, self._auth_context, self._safari_context):
            if context:
                try:
                    self.browser.send("Target.disposeBrowserContext", {"browserContextId": context}, timeout=10)
                except Exception:
                    pass


class SignInWithOAuthComponent:
    """The `sign-in-with-oauth` component's native side, as Gatehouse's iOS glue does it
    (Sources/GatehouseClientApple/SignInWithOAuthComponent.swift): on `click`, resolve `startPath`
    against the web view's URL (same host only), open ASWebAuthenticationSession there, and on the
    callback either `webView.load(redeem)` (`on_callback="load"`, today's glue) or route the redeem
    URL through the Navigator (`"route"`); a callback `?error=` or a cancel is replied to the page.
    """
    name = "sign-in-with-oauth"

    def __init__(self, callback_scheme="gatehouse-demo", https_callback=None, on_callback="load", act=None):
        self.callback_scheme = callback_scheme
        self.https_callback = https_callback
        self.on_callback = on_callback
        self.act = act   # optional callable(session) run once the system browser is showing (tests play the user)
        # optional callable(callback_url) run before the redeem is loaded (tests hold the app back, e.g. until
        # the hand-off token has expired)
        self.before_redeem = None
        self.sessions = []

    def on_receive(self, message, context):
        if message["event"] != "click":
            return
        data = message["data"]
        page = context.web_view.url
        start = urllib.parse.urljoin(page, data.get("startPath", ""))
        if host_of(start) != host_of(page) or not data.get("redeemPath"):
            context.app.events.record("component_refused", context.web_view.name, start=start)
            return
        threading.Thread(target=self._authenticate, args=(message, context, start), daemon=True).start()

    def _authenticate(self, message, context, start):
        app = context.app
        session = app.start_authentication_session(start, self.callback_scheme, self.https_callback)
        self.sessions.append(session)
        if self.act:
            try:
                self.act(session)
            except AuthenticationSessionClosed:
                pass   # the callback arrived while the user was still acting: nothing left to do
            except Exception:
                app.events.record("emulator_error", error=traceback.format_exc()[-2000:])
        try:
            callback = session.wait(timeout=60)
        except AuthenticationCancelled:
            app.call_soon(context.reply, {"id": message["id"], "component": self.name, "event": "click",
                                          "data": {"error": "cancelled"}})
            return
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        if "token" not in query:
            app.call_soon(context.reply, {"id": message["id"], "component": self.name, "event": "click",
                                          "data": {"error": query.get("error", "invalid_callback"),
                                                   "error_description": query.get("error_description", "")}})
            return
        if self.before_redeem:
            self.before_redeem(callback)
        page = context.web_view.url
        redeem = urllib.parse.urljoin(page, message["data"]["redeemPath"])
        redeem += ("&" if "?" in redeem else "?") + urllib.parse.urlencode({"token": query["token"]})
        app.events.record("component_redeem", context.web_view.name, url=redeem, how=self.on_callback)
        if self.on_callback == "route":
            app.call_soon(app.navigator.route, redeem)
        else:
            app.call_soon(context.web_view.load, redeem)
