"""The native journeys' fixtures and helpers: the Hotwire Native emulator (e2e/hotwire/emulator) on one
Chromium per module, one app (its own cookie store) per test; playing the user in the system browser
(the simulated provider's page, then Gatehouse's "Continue to <app>?"); and the checks every journey
makes on the emulator's record."""
import json
import os
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hotwire"))
sys.path.insert(0, os.path.join(HERE, ".."))

from emulator import Browser, HotwireApp, SignInWithOAuthComponent  # noqa: E402,F401
from sign_in_error import SignInError, validate_native_providers  # noqa: E402

# Anything here means the journey broke one of Hotwire Native's rules (e2e/hotwire/README.md).
BROKEN = ("visit_failed", "error_screen", "page_load_failed", "visit_stalled", "bridge_violation", "bridge_message_dropped",
          "web_view_left_app_host", "routed_to_safari", "fetch_failed", "emulator_error", "component_refused")


@pytest.fixture(scope="module")
def chromium():
    browser = Browser()
    yield browser
    browser.close()


@pytest.fixture
def make_app(chromium):
    made = []

    def factory(start_location, **options):
        app = HotwireApp(chromium, start_location, **options)
        made.append(app)
        return app

    yield factory
    for app in made:
        app.close()


def assert_no_broken_rule(app):
    broken = [event for kind in BROKEN for event in app.events.of(kind)]
    assert not broken, f"rules broken: {broken}\n{app.events.describe()}"


def first_index(app, kind):
    return next(i for i, event in enumerate(app.events.all()) if event.kind == kind)


def play_provider(email, confirm="continue", provider_action="allow"):
    """The component's `act`: in the system browser, pick `email` at the simulated provider, then answer
    Gatehouse's confirmation (`continue`, `cancel`, or None when none is expected)."""
    def act(session):
        if not session.wait_for_page("document.querySelector('#email') || document.querySelector('#native-confirm')", timeout=20):
            return
        if session.evaluate("!!document.querySelector('#email')"):
            session.evaluate(f"document.querySelector('#email').value = {json.dumps(email)}")
            session.click(f'button[value="{provider_action}"]')
        if confirm is None:
            return
        if session.wait_for_page("document.querySelector('#native-confirm')", timeout=20):
            session.click(f'#native-confirm button[value="{confirm}"]')
    return act


class NativeSDKComponent(SignInWithOAuthComponent):
    """The component of an app that signs in with Apple's or Google's own SDK (flow F3 and native Google), as the
    Swift package's component does it (Integrations/HotwireNative): for those providers no system browser opens.
    The SDK's answer (played by the provider simulator's native endpoints) is posted to Gatehouse's `/native/apple`
    or `/native/google` with `response=session`, the `Set-Cookie` goes into the web view's cookie store
    (WKHTTPCookieStore), and the web view is routed to the message's `continuePath` — the product's pending
    authorize, which ends in the product's session. Other providers use the system browser.

    `google_provider=False` is an app that lists Google without giving the component its Google SDK bridge;
    `sdk_cancels` are the providers whose sheet the user closes. Every failure goes to the app (`app_errors`, the
    Swift `onError`, recorded as `app_error`) and to the page (the bridge reply), typed as `GatehouseSignInError`."""

    def __init__(self, gatehouse_base, email, native=("apple", "google"), bundle_id="com.example.gatehouse.demo.app",
                 google_client_id="gatehouse-demo-app.apps.googleusercontent.com", app_id="demo-native",
                 google_provider=True, sdk_cancels=(), **options):
        super().__init__(**options)
        self.gatehouse_base, self.email, self.native = gatehouse_base, email, native
        self.bundle_id, self.google_client_id, self.app_id = bundle_id, google_client_id, app_id
        self.google_provider, self.sdk_cancels = google_provider, set(sdk_cancels)
        self.answers = []
        self.app_errors = []

    def on_receive(self, message, context):
        if message["event"] != "click":
            return super().on_receive(message, context)
        # NativeProviders: a listed provider the app cannot use is an error, never the system browser instead.
        refusal = validate_native_providers(set(self.native), self.google_provider)
        if refusal:
            return self._fail(refusal, message, context)
        if message["data"].get("provider") not in self.native:
            return super().on_receive(message, context)
        threading.Thread(target=self._native_sign_in, args=(message, context), daemon=True).start()

    def _fail(self, error, message, context):
        self.app_errors.append(error)
        context.app.events.record("app_error", case=error.kind, code=error.code, message=error.message)
        context.app.call_soon(context.reply, {"id": message["id"], "component": self.name, "event": "click",
                                              "data": error.reply_data()})

    def _native_sign_in(self, message, context):
        import hashlib
        import secrets
        import urllib.parse

        import requests
        app, data = context.app, message["data"]
        if data["provider"] in self.sdk_cancels:   # ASAuthorizationError.canceled / Google's sheet closed
            return self._fail(SignInError.cancelled(), message, context)
        raw_nonce = secrets.token_urlsafe(24)
        nonce = hashlib.sha256(raw_nonce.encode()).hexdigest()
        simulator = self.gatehouse_base + "/_sim"
        if data["provider"] == "apple":
            sdk = requests.post(simulator + "/apple/native/authorize", timeout=10,
                                data={"bundle_id": self.bundle_id, "email": self.email, "nonce": nonce}).json()
            body = {"identity_token": sdk["identity_token"], "authorization_code": sdk["authorization_code"], "raw_nonce": raw_nonce,
                    "given_name": sdk["given_name"], "family_name": sdk["family_name"], "app": self.app_id}
        else:
            sdk = requests.post(simulator + "/google/native/sign-in", timeout=10,
                                data={"client_id": self.google_client_id, "email": self.email, "nonce": nonce}).json()
            body = {"id_token": sdk["id_token"], "raw_nonce": raw_nonce, "app": self.app_id}
        answer = requests.post(f"{self.gatehouse_base}/native/{data['provider']}", json=body, timeout=10)
        self.answers.append(answer)
        app.events.record("native_sdk_sign_in", provider=data["provider"], status=answer.status_code)
        if answer.status_code != 200:
            refusal = answer.json()
            return self._fail(SignInError.from_code(refusal.get("error", "invalid_callback"), refusal.get("error_description")),
                              message, context)
        host = urllib.parse.urlsplit(self.gatehouse_base).hostname
        cookies = [{"name": c.name, "value": c.value, "domain": host, "path": c.path or "/", "httpOnly": True, "sameSite": "Lax"}
                   for c in answer.cookies]
        app.browser.send("Storage.setCookies", {"browserContextId": app.context_id, "cookies": cookies})
        target = urllib.parse.urljoin(context.web_view.url, data.get("continuePath") or "/")
        app.call_soon(app.navigator.route, target)
