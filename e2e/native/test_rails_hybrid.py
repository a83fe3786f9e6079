"""The hybrid journey on the example Rails app (examples/rails), one-origin shape (nginx: the app at /, Gatehouse
under /auth), inside the emulated Hotwire Native iOS app: the app's own "Sign in with Google/GitHub/Apple" →
Gatehouse's sign-in page in the web view hands the provider to the native side through the bridge → the system
browser (ASWebAuthenticationSession) signs in at the simulated provider and confirms "Continue to …?" → the
custom-scheme callback → the web view redeems, which continues the app's pending /oauth/authorize → the app's
callback → the web view is signed in to the Rails app (/me 200). Every emulator rule is checked; nothing but the
authentication session leaves the web view."""
import json
import os
import pathlib
import sys

import pytest
import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "rails"))
from rails_app import RailsStack  # noqa: E402
from support import SignInWithOAuthComponent, assert_no_broken_rule, chromium, make_app, play_provider  # noqa: E402,F401

APP = "demo-native"
SCHEME = "gatehouse-demo"


@pytest.fixture(scope="module")
def stack():
    rails = RailsStack(shape="one-origin")
    yield rails
    rails.stop()


def launch(make_app, stack, component):
    # The product's path configuration: Gatehouse's rules pasted into the app's own file (here: served by Gatehouse).
    return make_app(stack.app_url + "/session/new", components={"sign-in-with-oauth": component},
                    application_prefix=f"Gatehouse-App/{APP}",
                    path_configuration=[("server", stack.issuer + "/configurations/ios_v1.json")],
                    turbo_load_timeout_ms=5000, stall_timeout=10).launch()


def rails_me(app, stack):
    jar = {c["name"]: c["value"] for c in app.cookies() if c["path"] == "/" or not c["path"].startswith("/auth")}
    response = requests.get(stack.app_url + "/me", cookies=jar, timeout=5)
    return response.json() if response.status_code == 200 else None


@pytest.mark.parametrize("provider", ["google", "github", "apple"])
def test_the_app_s_provider_button_ends_signed_in_to_the_rails_app(make_app, stack, provider):
    email = f"hybrid.{provider}@example.com"
    component = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider(email))
    app = launch(make_app, stack, component)
    app.wait_for_page(f"document.querySelector('#sign-in-{provider}')")
    app.events.wait_for("turbo_pageLoaded", timeout=15)
    app.tap(f"#sign-in-{provider}")
    # Signed in to the Rails app, on its page, in the web view.
    app.wait_for_page(f"document.querySelector('#signed-in-as') && document.querySelector('#signed-in-as').textContent.includes({json.dumps(email)})",
                      timeout=60)
    assert app.current_url().startswith(stack.app_url + "/") and "/auth/" not in app.current_url()
    assert_no_broken_rule(app)
    me = rails_me(app, stack)
    assert me and me["email"] == email, me
    # Only the authentication session left the web view; the provider never saw the web view.
    assert not app.safari_pages and not app.system_urls
    assert app.events.of("auth_session_completed")
    assert any("/auth/native/redeem?token=" in event["url"] for event in app.events.of("component_redeem"))


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_native_sdk_sign_in_ends_signed_in_to_the_rails_app(make_app, stack, provider):
    """F3 (native Sign in with Apple) and native Google: the app's SDK answer goes to /native/{provider}, the session
    cookie into the web view, and the web view continues the app's pending authorize into the Rails session."""
    from support import NativeSDKComponent
    email = f"sdk.{provider}@example.com"
    component = NativeSDKComponent(stack.issuer, email, callback_scheme=SCHEME)
    app = launch(make_app, stack, component)
    app.wait_for_page(f"document.querySelector('#sign-in-{provider}')")
    app.events.wait_for("turbo_pageLoaded", timeout=15)
    app.tap(f"#sign-in-{provider}")
    app.wait_for_page(f"document.querySelector('#signed-in-as') && document.querySelector('#signed-in-as').textContent.includes({json.dumps(email)})",
                      timeout=60)
    assert_no_broken_rule(app)
    assert [a.status_code for a in component.answers] == [200]
    assert not app.events.of("auth_session_started"), "no system browser for the native SDKs"
    me = rails_me(app, stack)
    assert me and me["email"] == email, me
