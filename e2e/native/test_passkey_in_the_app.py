"""A passkey sign-in inside the Hotwire Native app ends in the Rails session: the example Rails app (one-origin shape,
Gatehouse under /auth) in the emulated Hotwire Native iOS app, under the library's real rules. The app's "Sign in" →
Gatehouse's sign-in page in the web view → "Sign in with a passkey" hands the ceremony to the app's `passkey-sign-in`
bridge component (the web view offers no passkey autofill) → the platform's passkey sheet (played by a software
authenticator composed with fido2's classes, writing iOS's origin `https://<rp id>`) → `POST /auth/native/passkey`
(`response=session`) → the cookie into the web view's cookie store → the pending authorize → the Rails callback →
signed in to the Rails app (/me 200)."""
import json
import pathlib
import re
import sys
import threading
import urllib.parse

import pytest
import requests
from fido2.utils import websafe_decode

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "rails"))
from passkey_authenticator import Authenticator  # noqa: E402
from rails_app import RailsStack  # noqa: E402
from support import SignInError, assert_no_broken_rule, chromium, make_app  # noqa: E402,F401
from test_rails_hybrid import documented_registration, rails_me  # noqa: E402

PASSWORD = "a long hybrid password"


@pytest.fixture(scope="module")
def stack():
    rails = RailsStack(shape="one-origin", extra_clients=[documented_registration()])
    yield rails
    rails.stop()


class PasskeySignInComponent:
    """The `passkey-sign-in` component's native side, as Integrations/HotwireNative's PasskeySignInComponent does it:
    on `click`, the options from Gatehouse (paths resolved under the app's pinned Gatehouse URL, never another host),
    the platform sheet (`cancels`: the user closes it), `POST /native/passkey` with `response=session`, the
    `Set-Cookie` into the web view's cookie store, then `continuePath` routed in the web view. Failures are replied
    to the page and recorded as `app_error`, typed like the Swift SDK's `GatehouseSignInError`."""
    name = "passkey-sign-in"

    def __init__(self, gatehouse_base, app_id, authenticator, cancels=False):
        self.gatehouse_base, self.app_id, self.authenticator, self.cancels = gatehouse_base, app_id, authenticator, cancels
        self.answers = []

    def _resolve(self, path):
        url = urllib.parse.urljoin(self.gatehouse_base + "/", path)
        base = urllib.parse.urlsplit(self.gatehouse_base)
        target = urllib.parse.urlsplit(url)
        inside = (target.scheme, target.netloc) == (base.scheme, base.netloc) and target.path.startswith(base.path.rstrip("/") + "/")
        return url if inside else None

    def on_receive(self, message, context):
        if message["event"] != "click":
            return
        data = message["data"]
        paths = [self._resolve(data.get(key, "")) for key in ("optionsPath", "finishPath")]
        if None in paths:
            return self._fail(SignInError.from_code("invalid_request", "This page may not start a sign-in."), message, context)
        threading.Thread(target=self._sign_in, args=(message, context, *paths), daemon=True).start()

    def _fail(self, error, message, context):
        context.app.events.record("app_error", case=error.kind, code=error.code, message=error.message)
        context.app.call_soon(context.reply, {"id": message["id"], "component": self.name, "event": "click", "data": error.reply_data()})

    def _sign_in(self, message, context, options_url, finish_url):
        app, data = context.app, message["data"]
        if self.cancels:   # ASAuthorizationError.canceled
            return self._fail(SignInError.cancelled(), message, context)
        issued = requests.post(options_url, json={"app": self.app_id}, timeout=10).json()
        rp_id = issued["publicKey"]["rpId"]
        fields = self.authenticator.assert_(websafe_decode(issued["publicKey"]["challenge"]), f"https://{rp_id}")
        answer = requests.post(finish_url, json={"app": self.app_id, "ceremony": issued["ceremony"], "response": "session", **fields},
                               timeout=10)
        self.answers.append(answer)
        app.events.record("native_passkey_sign_in", status=answer.status_code)
        if answer.status_code != 200:
            refusal = answer.json()
            return self._fail(SignInError.from_code(refusal.get("error", "invalid_callback"), refusal.get("error_description")),
                              message, context)
        host = urllib.parse.urlsplit(self.gatehouse_base).hostname
        cookies = [{"name": c.name, "value": c.value, "domain": host, "path": c.path or "/", "httpOnly": True, "sameSite": "Lax"}
                   for c in answer.cookies]
        app.browser.send("Storage.setCookies", {"browserContextId": app.context_id, "cookies": cookies})
        app.call_soon(app.navigator.route, urllib.parse.urljoin(context.web_view.url, data.get("continuePath") or "/"))


def hidden(html, name):
    return re.search(r'name="%s" value="([^"]*)"' % name, html).group(1)


def user_with_passkey(stack, email):
    """A verified account with a passkey added on Gatehouse's account page (through the one-origin proxy)."""
    stack.create_user(email, PASSWORD)
    web = requests.Session()
    page = web.get(stack.issuer + "/sign-in", timeout=10)
    signed_in = web.post(stack.issuer + "/sign-in", data={"csrf_token": hidden(page.text, "csrf_token"), "email": email, "password": PASSWORD},
                         allow_redirects=False, timeout=10)
    assert signed_in.status_code == 303, signed_in.text[:300]
    csrf = hidden(web.get(stack.issuer + "/account", timeout=10).text, "csrf_token")
    options = web.post(stack.issuer + "/account/passkeys/options", data={"csrf_token": csrf}, timeout=10).json()["publicKey"]
    authenticator = Authenticator(options["rp"]["id"])
    client_data, attestation = authenticator.register(websafe_decode(options["challenge"]), websafe_decode(options["user"]["id"]),
                                                      stack.app_url)
    from fido2.utils import websafe_encode
    stored = web.post(stack.issuer + "/account/passkeys", data={
        "csrf_token": csrf, "name": "iPhone", "credential_id": websafe_encode(authenticator.credential_id),
        "client_data_json": websafe_encode(client_data), "attestation_object": websafe_encode(attestation)}, timeout=10)
    assert stored.status_code == 200, stored.text
    return authenticator


def launch(make_app, stack, component):
    return make_app(stack.app_url + "/session/new", components={"passkey-sign-in": component},
                    application_prefix="Gatehouse-App/my-app",
                    path_configuration=[("server", stack.issuer + "/configurations/ios_v1.json")],
                    turbo_load_timeout_ms=5000, stall_timeout=10).launch()


def open_gatehouse_sign_in(app):
    app.wait_for_page("document.querySelector('#sign-in-gatehouse')")
    app.events.wait_for("turbo_pageLoaded", timeout=15)
    app.tap("#sign-in-gatehouse")
    # Gatehouse's sign-in page: the passkey button is shown (the app's component runs it), no autofill is started.
    app.wait_for_page("document.querySelector('#passkey-sign-in') && !document.querySelector('#passkey-sign-in').hidden", timeout=30)


def test_a_passkey_sign_in_inside_the_app_ends_in_the_rails_session(make_app, stack):
    email = "passkey.hybrid@example.com"
    component = PasskeySignInComponent(stack.issuer, "my-app", user_with_passkey(stack, email))
    app = launch(make_app, stack, component)
    open_gatehouse_sign_in(app)
    app.tap("#passkey-sign-in-button")
    app.wait_for_page(f"document.querySelector('#signed-in-as') && document.querySelector('#signed-in-as').textContent.includes({json.dumps(email)})",
                      timeout=60)
    app.wait_for_url(lambda url: url.startswith(stack.app_url + "/") and "/auth/" not in url)
    assert_no_broken_rule(app)
    assert [a.status_code for a in component.answers] == [200]
    assert not app.events.of("auth_session_started") and not app.safari_pages, "nothing left the app"
    me = rails_me(app, stack)
    assert me and me["email"] == email, me


def test_a_closed_passkey_sheet_leaves_the_user_on_the_sign_in_page_quietly(make_app, stack):
    component = PasskeySignInComponent(stack.issuer, "my-app", Authenticator("127.0.0.1"), cancels=True)
    app = launch(make_app, stack, component)
    open_gatehouse_sign_in(app)
    app.tap("#passkey-sign-in-button")
    reply = app.events.wait_for("bridge_reply", timeout=20)
    assert reply["data"]["error"] == "cancelled"
    shown = app.evaluate("document.querySelector('#passkey-sign-in [data-passkey-error]').hidden")
    assert shown is True, "a cancel is not an error on the page"
    assert not component.answers and rails_me(app, stack) is None
    assert_no_broken_rule(app)


def test_a_passkey_gatehouse_does_not_know_is_refused_and_shown_on_the_page(make_app, stack):
    component = PasskeySignInComponent(stack.issuer, "my-app", Authenticator("127.0.0.1"))
    component.authenticator.user_handle = b"\x00" * 32
    app = launch(make_app, stack, component)
    open_gatehouse_sign_in(app)
    app.tap("#passkey-sign-in-button")
    error = app.events.wait_for("app_error", timeout=30)
    assert error["code"] == "invalid_grant"
    app.wait_for_page("!document.querySelector('#passkey-sign-in [data-passkey-error]').hidden", timeout=10)
    assert rails_me(app, stack) is None
    assert_no_broken_rule(app)
