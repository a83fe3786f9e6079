"""Gatehouse's own pages inside the emulated Hotwire Native iOS app (no product app): the sign-in page and
/account load Turbo (Gatehouse's adapter script), the bridge queues a tap made before register(), the
hand-off ends with the web view signed in, "Link Google" from /account goes through the bridge, and an
error from the system browser comes back to the page. Every emulator rule is checked on every journey."""
import urllib.parse

import pytest
import requests

from conftest import GatehouseProcess
from support import SignInWithOAuthComponent, assert_no_broken_rule, chromium, first_index, make_app, play_provider  # noqa: F401

APP = "demo-native"
SCHEME = "gatehouse-demo"


@pytest.fixture(scope="module")
def gatehouse():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"})
    yield process
    process.stop()


def launch(make_app, gatehouse, path, component, register_delay=0.0):
    return make_app(gatehouse.url + path, components={"sign-in-with-oauth": component}, application_prefix=f"Gatehouse-App/{APP}",
                    path_configuration=[("server", gatehouse.url + "/configurations/ios_v1.json")], register_delay=register_delay,
                    turbo_load_timeout_ms=4000, stall_timeout=8).launch()


def session_of(app, gatehouse):
    jar = {c["name"]: c["value"] for c in app.cookies()}
    return requests.get(gatehouse.url + "/native/session", cookies=jar, timeout=5)


def test_sign_in_with_google_ends_signed_in_in_the_web_view(make_app, gatehouse):
    component = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider("hybrid.google@example.com"))
    app = launch(make_app, gatehouse, "/sign-in?return_to=%2Faccount", component)
    app.wait_for_page("document.querySelector('form[action=\"/auth/google\"] button')")
    app.events.wait_for("turbo_pageLoaded", timeout=10)
    app.tap('form[action="/auth/google"] button')
    app.wait_for_page("location.pathname === '/account' && document.body.textContent.includes('hybrid.google@example.com')", timeout=40)
    assert_no_broken_rule(app)
    assert app.events.of("bridge_message"), "the tap went through the bridge"
    redeem = app.events.of("component_redeem")[0]["url"]
    assert "/native/redeem?token=" in redeem and "verifier" not in redeem, "no secret of the web view in the redeem URL"
    status = session_of(app, gatehouse)
    assert status.status_code == 200 and status.json()["email"] == "hybrid.google@example.com"


def test_a_tap_before_register_waits_in_the_queue(make_app, gatehouse):
    component = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider("hybrid.early@example.com"))
    app = launch(make_app, gatehouse, "/sign-in?return_to=%2Faccount", component, register_delay=2.5)
    app.wait_for_page("document.querySelector('form[action=\"/auth/google\"] button')")
    app.tap('form[action="/auth/google"] button')
    app.wait_for_page("location.pathname === '/account' && document.body.textContent.includes('hybrid.early@example.com')", timeout=40)
    assert_no_broken_rule(app)
    assert first_index(app, "bridge_registered") < first_index(app, "bridge_message"), "delivered after register(), not before"


def test_cancelling_in_the_system_browser_is_reported_on_the_page(make_app, gatehouse):
    component = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider("hybrid.cancel@example.com", confirm="cancel"))
    app = launch(make_app, gatehouse, "/sign-in?return_to=%2Faccount", component)
    app.wait_for_page("document.querySelector('form[action=\"/auth/google\"] button')")
    app.tap('form[action="/auth/google"] button')
    app.wait_for_page("document.querySelector('.native-error')", timeout=40)
    assert "cancelled" in app.evaluate("document.querySelector('.native-error').textContent")
    assert "/sign-in" in app.current_url()
    assert_no_broken_rule(app)
    assert session_of(app, gatehouse).status_code == 401


def test_link_google_from_the_account_page_goes_through_the_bridge(make_app, gatehouse):
    # Signed in with GitHub first (through the bridge), then "Link Google" on /account.
    first = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider("hybrid.link@example.com"))
    app = launch(make_app, gatehouse, "/sign-in?return_to=%2Faccount", first)
    app.wait_for_page("document.querySelector('form[action=\"/auth/github\"] button')")
    app.tap('form[action="/auth/github"] button')
    app.wait_for_page("location.pathname === '/account' && document.querySelector('form[action=\"/auth/google/link\"] button')", timeout=40)
    first.act = play_provider("hybrid.link.google@example.com")
    app.tap('form[action="/auth/google/link"] button')
    app.wait_for_page("location.search.includes('identity-linked')", timeout=40)
    assert_no_broken_rule(app)
    assert sorted(session_of(app, gatehouse).json()["providers"]) == ["github", "google"]
    # Google never saw the web view: only the system browser's user agent reached the simulator.
    assert not any("disallowed_useragent" in line for line in gatehouse.lines)
