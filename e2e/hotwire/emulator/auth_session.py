"""ASWebAuthenticationSession: a separate browser profile (its own cookies, never the app's) started
at a URL and followed until a navigation reaches the callback — a URL with the callback scheme, or
(`.https(host:path:)`, iOS 17.4+) an https URL on the callback host and path. That URL is handed
back to the app and the session closes; `cancel()` is the user's "Cancel".
"""
import json
import threading
import time
import urllib.parse


class AuthenticationCancelled(Exception):
    pass


class AuthenticationSessionClosed(Exception):
    """The session already handed its callback back (or was cancelled): its page is gone."""


class AuthenticationSession:
    def __init__(self, app, url, callback_scheme=None, https_callback=None, name="auth"):
        self.app = app
        self.browser = app.browser
        self.name = name
        self.url = url
        self.callback_scheme = callback_scheme
        self.https_callback = https_callback   # (host, path)
        self.result = None
        self.done = threading.Event()
        self.pages = []
        created = self.browser.send("Target.createTarget", {"url": "about:blank", "browserContextId": app.auth_context_id()})
        self.target_id = created["targetId"]
        self.session_id = self.browser.send("Target.attachToTarget", {"targetId": self.target_id, "flatten": True})["sessionId"]
        self.browser.add_listener(self._listener)
        self.send("Page.enable")
        self.send("Network.setUserAgentOverride", {"userAgent": app.system_browser_user_agent})
        self.send("Fetch.enable", {"patterns": [
            {"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"},
            {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"},
        ]})
        app.events.record("auth_session_started", url=url, callback_scheme=callback_scheme, https_callback=https_callback)
        self.send("Page.navigate", {"url": url}, wait=False)

    def send(self, method, params=None, wait=True, timeout=20):
        return self.browser.send(method, params, session_id=self.session_id, wait=wait, timeout=timeout)

    def is_callback(self, url):
        parts = urllib.parse.urlsplit(url)
        if self.callback_scheme and parts.scheme == self.callback_scheme:
            return True
        if self.https_callback and parts.scheme == "https":
            host, path = self.https_callback
            return parts.hostname == host and parts.path == path
        return False

    def _listener(self, method, params, session_id):
        if session_id != self.session_id or self.done.is_set():
            return
        if method == "Fetch.requestPaused":
            url = params["request"]["url"]
            if "responseStatusCode" in params:
                headers = {h["name"].lower(): h["value"] for h in params.get("responseHeaders") or []}
                location = headers.get("location")
                if location and 300 <= params["responseStatusCode"] < 400:
                    target = urllib.parse.urljoin(url, location)
                    if self.is_callback(target):
                        self.send("Fetch.failRequest", {"requestId": params["requestId"], "errorReason": "Aborted"}, wait=False)
                        return self._finish(target)
                self.send("Fetch.continueRequest", {"requestId": params["requestId"]}, wait=False)
                return
            if self.is_callback(url):
                self.send("Fetch.failRequest", {"requestId": params["requestId"], "errorReason": "Aborted"}, wait=False)
                return self._finish(url)
            self.send("Fetch.continueRequest", {"requestId": params["requestId"]}, wait=False)
        elif method == "Page.frameRequestedNavigation" and self.is_callback(params["url"]):
            self._finish(params["url"])
        elif method == "Page.frameNavigated" and not params["frame"].get("parentId"):
            self.pages.append(params["frame"]["url"])
            self.app.events.record("auth_session_page", url=params["frame"]["url"])

    def _finish(self, url, cancelled=False):
        if self.done.is_set():
            return
        self.result = None if cancelled else url
        self.app.events.record("auth_session_cancelled" if cancelled else "auth_session_completed", url=url)
        self.done.set()
        self.browser.remove_listener(self._listener)
        threading.Thread(target=self._close, daemon=True).start()

    def _close(self):
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target_id})
        except Exception:
            pass

    def wait(self, timeout=30):
        """The callback URL; AuthenticationCancelled when the user cancelled (or nothing came)."""
        if not self.done.wait(timeout):
            self._finish(None, cancelled=True)
        if self.result is None:
            raise AuthenticationCancelled()
        return self.result

    def cancel(self):
        self._finish(None, cancelled=True)

    # For tests playing the user inside the system browser.
    def evaluate(self, expression):
        if self.done.is_set():
            raise AuthenticationSessionClosed()
        # Short: the session's page closes as soon as the callback is reached, and a command sent to a
        # closing target may never be answered.
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=3)
        return result.get("result", {}).get("value")

    def current_url(self):
        return self.evaluate("location.href")

    def wait_for_page(self, predicate_js, timeout=15):
        """True once the predicate holds on the system browser's page; False when the session ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.done.is_set():
                return False
            try:
                if self.evaluate(f"document.readyState === 'complete' && !!({predicate_js})"):
                    return True
            except Exception:
                pass
            time.sleep(0.05)
        if self.done.is_set():
            return False
        raise AssertionError(f"system browser: {predicate_js} not true within {timeout} s (at {self.pages[-1:]})")

    def click(self, selector):
        return self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return false; e.click(); return true; }})()")
