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


GUIDE = pathlib.Path(__file__).resolve().parent.parent.parent / "docs" / "integrations" / "hotwire-native.md"


def documented_registration():
    """The native app's registration example in hotwire-native.md, as written."""
    import re
    return json.loads(re.search(r"<!-- registration-example -->\n```json\n(.*?)```\n", GUIDE.read_text(), re.S)[1])


@pytest.fixture(scope="module")
def stack():
    # Gatehouse starts with the guide's registration example beside the demo's app (a native client needs redirect_uris).
    rails = RailsStack(shape="one-origin", extra_clients=[documented_registration()])
    yield rails
    rails.stop()


def test_the_documented_registration_is_served_as_association_files_through_the_one_origin_proxy(stack):
    """deploy/nginx-one-origin.conf forwards the host-root association files to Gatehouse, which builds them from the
    registration example's `native` settings."""
    registration = documented_registration()
    apple = requests.get(stack.app_url + "/.well-known/apple-app-site-association", timeout=5)
    assert apple.status_code == 200 and apple.headers["Content-Type"].startswith("application/json"), apple.text
    assert registration["native"]["apple_app_ids"][0] in apple.text
    android = requests.get(stack.app_url + "/.well-known/assetlinks.json", timeout=5)
    assert android.status_code == 200 and registration["native"]["package_names"][0] in android.text
    assert registration["native"]["android_cert_fingerprints"][0] in android.text


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
    app.wait_for_url(lambda url: url.startswith(stack.app_url + "/") and "/auth/" not in url)
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


def page_error(app):
    """The message Gatehouse's bridge script shows next to the sign-in form (None when it shows none)."""
    return app.evaluate("(document.querySelector('.native-error') || {}).textContent || null")


def tap_native(make_app, stack, provider, **component_options):
    from support import NativeSDKComponent
    component = NativeSDKComponent(stack.issuer, component_options.pop("email", f"sdk.{provider}.x@example.com"),
                                   callback_scheme=SCHEME, **component_options)
    app = launch(make_app, stack, component)
    app.wait_for_page(f"document.querySelector('#sign-in-{provider}')")
    app.events.wait_for("turbo_pageLoaded", timeout=15)
    app.tap(f"#sign-in-{provider}")
    return app, component


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_a_cancelled_native_sign_in_reaches_the_app_typed_and_the_page_stays_quiet(make_app, stack, provider):
    app, component = tap_native(make_app, stack, provider, sdk_cancels={provider})
    error = app.events.wait_for("app_error", timeout=30)
    assert (error["case"], error["code"], error["message"]) == ("cancelled", "cancelled", "You closed the sign-in.")
    reply = app.events.wait_for("bridge_reply", timeout=10)
    assert reply["data"] == {"error": "cancelled", "error_description": "You closed the sign-in."}
    assert page_error(app) is None, "a cancel is not an error on the page"
    assert not component.answers and not app.events.of("auth_session_started"), "nothing was posted, no browser opened"
    assert rails_me(app, stack) is None
    assert_no_broken_rule(app)


def test_native_google_without_the_apps_google_bridge_is_an_error_not_the_system_browser(make_app, stack):
    app, component = tap_native(make_app, stack, "google", google_provider=False)
    error = app.events.wait_for("app_error", timeout=30)
    assert (error["case"], error["code"]) == ("nativeProviderUnavailable", "unsupported_provider")
    app.wait_for_page("document.querySelector('.native-error')", timeout=10)
    assert page_error(app) == "Sign in with Google isn't available in this app."
    assert not app.events.of("auth_session_started"), "no silent fallback to the system browser"
    assert not component.answers and rails_me(app, stack) is None


def test_native_google_for_an_existing_email_reaches_the_app_as_account_exists(make_app, stack):
    email = "existing.native@example.com"
    stack.create_user(email, "a password for the existing account")
    app, component = tap_native(make_app, stack, "google", email=email)
    error = app.events.wait_for("app_error", timeout=30)
    assert [a.status_code for a in component.answers] == [409]
    assert (error["case"], error["code"]) == ("accountExists", "account_exists")
    app.wait_for_page("document.querySelector('.native-error')", timeout=10)
    assert page_error(app) == error["message"] and error["message"], error
    assert rails_me(app, stack) is None
    assert_no_broken_rule(app)


def test_the_products_file_with_gatehouses_merged_rules_keeps_the_continuation_out_of_a_modal(make_app, stack):
    """The product's own path configuration with Gatehouse's served rules appended (`ios_v1_rules.json`): native
    Apple's continuation (the pending authorize) is routed in the default context, replacing the sign-in screen,
    and the journey ends signed in; Gatehouse's sign-in page, query string and all, is matched."""
    from support import NativeSDKComponent
    gatehouse_rules = requests.get(stack.issuer + "/configurations/ios_v1_rules.json", timeout=5).json()
    product = {"settings": {}, "rules": [{"patterns": [".*"], "properties": {"context": "default", "pull_to_refresh_enabled": True}},
                                         {"patterns": ["^/posts/new(\\?|$)"], "properties": {"context": "modal"}}] + gatehouse_rules["rules"]}
    email = "merged.rules@example.com"
    component = NativeSDKComponent(stack.issuer, email, callback_scheme=SCHEME)
    app = make_app(stack.app_url + "/session/new", components={"sign-in-with-oauth": component},
                   application_prefix=f"Gatehouse-App/{APP}", path_configuration=[("data", product)],
                   turbo_load_timeout_ms=5000, stall_timeout=10).launch()
    sign_in = stack.issuer + "/sign-in?return_to=%2Fauth%2Foauth%2Fauthorize%3Fclient_id%3Dexample-rails"
    assert app.path_configuration.properties(sign_in).get("context") == "modal"
    assert app.path_configuration.properties(stack.app_url + "/sign-in?x=1").get("context") == "default"
    assert app.path_configuration.properties(stack.app_url + "/posts/new?draft=1").get("context") == "modal"
    app.wait_for_page("document.querySelector('#sign-in-apple')")
    app.events.wait_for("turbo_pageLoaded", timeout=15)
    app.tap("#sign-in-apple")
    app.wait_for_page(f"document.querySelector('#signed-in-as') && document.querySelector('#signed-in-as').textContent.includes({json.dumps(email)})",
                      timeout=60)
    continuation = [e for e in app.events.of("routed_in_app") if "/auth/oauth/authorize?" in e["url"]]
    assert continuation and continuation[0]["context"] == "default" and continuation[0]["presentation"] == "replace", continuation
    assert not app.events.of("modal_presented")
    assert_no_broken_rule(app)


def test_the_rules_the_guide_used_to_give_misbehave_under_hotwire_natives_matching(make_app, stack):
    """Why the rules changed: with query strings matched (the library's default), `/sign-in$` misses Gatehouse's
    sign-in page, and `/oauth/authorize.*` as modal would open the continuation in a modal over a stale page."""
    old = {"settings": {}, "rules": [{"patterns": ["/sign-in$", "/sign-up$", "/password/.*", "/oauth/authorize.*"],
                                      "properties": {"context": "modal", "pull_to_refresh_enabled": False}}]}
    app = make_app(stack.app_url + "/session/new", path_configuration=[("data", old)]).launch()
    assert app.path_configuration.properties(stack.issuer + "/sign-in?return_to=%2F").get("context") is None
    assert app.path_configuration.properties(stack.issuer + "/oauth/authorize?client_id=example-rails").get("context") == "modal"
