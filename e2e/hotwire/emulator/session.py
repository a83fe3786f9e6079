"""Session, ColdBootVisit and JavaScriptVisit (Source/Turbo/Session/, Source/Turbo/Visit/).

A Session owns one web view. Until a cold boot has completed (Turbo loaded and `pageLoaded`
posted) the Session is not `initialized` and every visit is a ColdBootVisit: a native load whose
visit is the navigation delegate. Once initialized, visits are JavaScriptVisits through the page's
Turbo adapter (`turboNative.visitLocationWithOptionsAndRestorationIdentifier`), and the Session is
the navigation delegate, applying the WebViewPolicyManager's handlers in their default order.
"""
import json
import threading
import urllib.parse

from .webview import JavaScriptError, host_of, scheme_of

INVALID_EXTERNAL_SCHEMES = {"about", "data", "file", "javascript"}


class Visit:
    def __init__(self, session, location, options):
        self.session = session
        self.location = location
        self.options = options or {"action": "advance"}
        self.state = "initialized"
        self.restoration_identifier = None

    @property
    def events(self):
        return self.session.app.events

    def start(self):
        if self.state == "initialized":
            self.state = "started"
            self.start_visit()

    def cancel(self):
        if self.state == "started":
            self.state = "canceled"
            self.events.record("visit_cancelled", self.session.name, location=self.location, visit=self.kind)
            self.cancel_visit()

    def complete(self):
        if self.state == "started":
            self.state = "completed"
            self.events.record("visit_completed", self.session.name, location=self.location, visit=self.kind,
                               url=self.session.web_view.url)
            self.complete_visit()
            self.session.visit_did_complete(self)

    def fail(self, error):
        if self.state == "started":
            self.state = "failed"
            self.events.record("visit_failed", self.session.name, location=self.location, visit=self.kind, error=error)
            self.fail_visit()
            self.session.app.navigator.visit_did_fail(self.session, self, error)

    def start_visit(self): pass
    def cancel_visit(self): pass
    def complete_visit(self): pass
    def fail_visit(self): pass


class ColdBootVisit(Visit):
    kind = "cold_boot"

    def start_visit(self):
        web_view = self.session.web_view
        web_view.navigation_delegate = self
        self.session.page_load_delegate = self
        self.events.record("visit_started", self.session.name, location=self.location, visit=self.kind)
        response = self.options.get("response") or {}
        if response.get("responseHTML") and 200 <= int(response.get("statusCode", 0)) < 300:
            # loadHTMLString(body, baseURL: location)
            web_view.send("Page.navigate", {"url": self.location}, wait=False)
        else:
            web_view.load(self.location)

    def _remove_navigation_delegate(self):
        if self.session.web_view.navigation_delegate is self:
            self.session.web_view.navigation_delegate = None

    def cancel_visit(self):
        self._remove_navigation_delegate()
        self.session.web_view.send("Page.stopLoading", wait=False)

    def complete_visit(self):
        self._remove_navigation_delegate()
        self.session.visit_did_initialize_web_view(self)

    def fail_visit(self):
        self._remove_navigation_delegate()

    # WKNavigationDelegate while the cold boot runs.
    def decide_policy(self, web_view, url, navigation_type, main_frame, redirect):
        if navigation_type == "linkActivated":
            self.events.record("cold_boot_link_ignored", self.session.name, url=url)
            self.session.app.call_soon(self.session.visit_did_propose_visit_to_location, url)
            return False
        if not main_frame:
            return True
        is_redirect = self.location != url
        if is_redirect and host_of(self.location) != host_of(url):
            self.events.record("cold_boot_cross_origin_redirect", self.session.name, location=self.location, url=url)
            self.session.app.call_soon(self.session.visit_did_propose_visit_to_location, url)
            return False
        return True

    def decide_response(self, web_view, url, status):
        if status is not None and 200 <= status < 300:
            return True
        self.session.app.call_soon(self.fail, f"http {status}")
        return False

    def did_fail_provisional_navigation(self, web_view, url, error):
        self.fail(f"web {error}")

    def page_loaded(self, restoration_identifier):
        self.restoration_identifier = restoration_identifier
        self.complete()


class JavaScriptVisit(Visit):
    kind = "javascript"

    def __init__(self, session, location, options, restoration_identifier):
        super().__init__(session, location, options)
        self.identifier = "(pending)"
        self.restoration_identifier = restoration_identifier

    def start_visit(self):
        self.session.visit_delegate = self
        self.events.record("visit_started", self.session.name, location=self.location, visit=self.kind)
        call = "window.turboNative.visitLocationWithOptionsAndRestorationIdentifier({}, {}, {})".format(
            json.dumps(self.location), json.dumps(self.options), json.dumps(self.restoration_identifier))
        try:
            self.session.web_view.evaluate(call)
        except JavaScriptError as error:
            self.events.record("javascript_evaluation_failed", self.session.name, error=str(error)[:300])
            self.session.did_fail_javascript_evaluation()
            return
        stall = self.session.app.stall_timeout
        if stall:
            threading.Timer(stall, lambda: self.session.app.call_soon(self._check_stalled)).start()

    def _check_stalled(self):
        # Not a library behaviour: the real app just keeps its activity indicator. Recorded so tests can say so.
        if self.state == "started" and self.session.current_visit is self:
            self.events.record("visit_stalled", self.session.name, location=self.location, identifier=self.identifier)

    def cancel_visit(self):
        try:
            self.session.web_view.evaluate(f"window.turboNative.cancelVisitWithIdentifier({json.dumps(self.identifier)})")
        except JavaScriptError:
            pass


class Session:
    def __init__(self, app, web_view, name):
        self.app = app
        self.web_view = web_view
        self.name = name
        web_view.session = self
        self.initialized = False
        self.current_visit = None
        self.topmost_visit = None
        self.page_load_delegate = None
        self.visit_delegate = None
        self.retried = set()

    def visit(self, location, options=None, reload=False):
        if reload:
            self.initialized = False
        if self.initialized:
            restoration = self.topmost_visit.restoration_identifier if self.topmost_visit else None
            visit = JavaScriptVisit(self, location, options, restoration)
        else:
            visit = ColdBootVisit(self, location, options)
        if self.current_visit:
            self.current_visit.cancel()
        self.current_visit = visit
        visit.start()

    def reload(self):
        target = self.topmost_visit or self.current_visit
        if target is None:
            return
        self.app.events.record("session_reload", self.name, location=target.location)
        self.initialized = False
        self.visit(target.location)

    def visitable_will_appear(self):
        """VisitableDelegate.visitableViewWillAppear for the screen the Navigator just showed for a route:
        "navigating forward — complete navigation early" (Session.completeNavigationForCurrentVisit), so the
        new visit is the topmost one at once, and a `pageInvalidated` during it reloads the new screen's
        location, not the previous screen's."""
        visit, topmost = self.current_visit, self.topmost_visit
        if visit is not None and topmost is not None and visit is not topmost and visit.state == "started":
            self.topmost_visit = visit

    def visit_did_initialize_web_view(self, visit):
        self.initialized = True
        # Navigator.sessionDidLoadWebView: the Session becomes the navigation delegate.
        self.web_view.navigation_delegate = self

    def visit_did_complete(self, visit):
        self.topmost_visit = visit
        self.retried.clear()

    def visit_did_propose_visit_to_location(self, url):
        self.app.navigator.propose(self, url, {"action": "advance"})

    def did_fail_javascript_evaluation(self):
        visit = self.current_visit
        if visit is None or not self.initialized:
            return
        self.initialized = False
        visit.cancel()
        self.visit(visit.location)

    # WebViewPolicyManager (HotwireConfig's default handlers, in order) while initialized.
    def decide_policy(self, web_view, url, navigation_type, main_frame, redirect):
        navigator = self.app.navigator
        if main_frame and navigation_type == "reload":
            self.app.call_soon(navigator.reload)
            return False
        if navigation_type == "linkActivated" and not main_frame:
            self.app.call_soon(navigator.route, url)
            return False
        if navigation_type == "linkActivated" or (main_frame and navigation_type == "other"):
            if scheme_of(url) in INVALID_EXTERNAL_SCHEMES:
                return False
            self.app.call_soon(navigator.route, url)
            return False
        return True

    # WebViewBridge: messages from turbo.js.
    def did_receive_turbo_message(self, web_view, body, href):
        name = body.get("name") if isinstance(body, dict) else None
        data = body.get("data", {}) if isinstance(body, dict) else {}
        if name is None:
            return
        if name not in ("log", "visitRendered", "visitRequestStarted", "visitRequestFinished"):
            self.app.events.record("turbo_" + name, self.name, href=href,
                                   **{k: v for k, v in data.items() if k in ("location", "identifier", "statusCode", "isReady", "error")})
        visit = self.current_visit
        if name == "pageLoaded":
            delegate = self.page_load_delegate
            if delegate is not None:
                delegate.page_loaded(data.get("restorationIdentifier"))
        elif name == "turboIsReady" and not data.get("isReady"):
            self.did_fail_initial_page_load("notReady")
        elif name == "pageLoadFailed":
            self.app.events.record("page_load_failed", self.name, url=href)
            self.did_fail_initial_page_load("notPresent")
        elif name == "visitProposed":
            self.app.navigator.propose(self, data["location"], data.get("options") or {"action": "advance"})
        elif name == "visitStarted":
            if isinstance(self.visit_delegate, JavaScriptVisit) and self.visit_delegate is visit:
                visit.identifier = data["identifier"]
        elif name == "visitRequestFailed":
            if isinstance(visit, JavaScriptVisit) and data.get("identifier") == visit.identifier:
                visit.fail(f"http {data.get('statusCode')}")
        elif name == "visitRequestFailedWithNonHttpStatusCode":
            self.resolve_redirect(data["location"], data.get("identifier"), data.get("statusCode"))
        elif name == "visitCompleted":
            if isinstance(visit, JavaScriptVisit) and data.get("identifier") == visit.identifier:
                visit.restoration_identifier = data.get("restorationIdentifier")
                visit.complete()
        elif name == "pageInvalidated":
            self.reload()

    def did_fail_initial_page_load(self, reason):
        visit = self.current_visit
        if visit is None or self.initialized:
            self.app.events.record("initial_page_load_failure_ignored", self.name, reason=reason)
            return
        self.initialized = False
        visit.cancel()
        # Session.webView(_:didFailInitialPageLoadWithError:) reports the failure for the visit.
        self.app.events.record("visit_failed", self.name, location=visit.location, visit=visit.kind, error=f"load {reason}")
        self.app.navigator.visit_did_fail(self, visit, f"load {reason}")

    def resolve_redirect(self, location, identifier, status):
        """JSFetchRecoveryHandler: ask the server natively (cookies from the web view's store) where
        the failed fetch was going; a cross-origin redirect is routed, anything else fails/retries."""
        visit = self.current_visit

        def work():
            outcome = self.app.native_http_resolve(location)
            self.app.call_soon(finish, outcome)

        def finish(outcome):
            current = self.current_visit
            if not isinstance(current, JavaScriptVisit) or current.identifier != identifier:
                return
            kind, url = outcome
            self.app.events.record("fetch_recovery", self.name, location=location, outcome=kind, url=url)
            if kind == "cross_origin_redirect":
                self.app.navigator.pop(self)
                self.app.navigator.route(url)
            elif kind == "same_origin_redirect":
                current.fail(f"turbo status {status}")
            elif identifier in self.retried:
                self.retried.discard(identifier)
                current.fail(f"turbo status {status}")
            else:
                self.retried.add(identifier)
                self.reload()

        if visit is not None:
            threading.Thread(target=work, daemon=True).start()
