"""Self-tests of the Hotwire Native iOS emulator: one (or more) per rule, each able to fail.

Each rule is shown both ways — a page or navigation that must trip it, and one that must not — so
an emulator that did not apply the rule fails here. The page set is e2e/hotwire/pages.py on
loopback; 127.0.0.1 and localhost (same server) are two hosts to the router.
"""
import json
import time

import pytest

from emulator_fixtures import browser, make_app  # noqa: F401  (fixtures)

from emulator import SignInWithOAuthComponent
from pages import Pages

# The library waits 30 s (turbo.js TURBO_LOAD_TIMEOUT); these tests use a shorter value.
SHORT_TURBO_TIMEOUT_MS = 700


@pytest.fixture(scope="module")
def pages():
    server = Pages()
    yield server
    server.close()


def booted(make_app, pages, path="/turbo/a", **options):
    options.setdefault("turbo_load_timeout_ms", SHORT_TURBO_TIMEOUT_MS)
    app = make_app(pages.url(path), **options).launch()
    app.events.wait_for("visit_completed", location=pages.url(path), timeout=10)
    return app


# (a) every page shown must load Turbo ---------------------------------------------------------

def test_a_cold_boot_of_a_page_without_turbo_fails_with_page_load_failed(make_app, pages):
    app = make_app(pages.url("/plain/x"), turbo_load_timeout_ms=SHORT_TURBO_TIMEOUT_MS).launch()
    app.events.wait_for("page_load_failed", url=pages.url("/plain/x"), timeout=5)
    failed = app.events.of("visit_failed")[0]
    # turbo.js posts turboIsReady(false), then pageLoadFailed: Session fails the visit (notReady, notPresent).
    assert failed["error"] in ("load notReady", "load notPresent") and failed["visit"] == "cold_boot"
    assert app.events.of("error_screen")
    assert not app.events.of("visit_completed")


def test_a_pages_with_turbo_complete_and_never_report_page_load_failed(make_app, pages):
    app = booted(make_app, pages, "/turbo/a")
    deferred = booted(make_app, pages, "/late-turbo?mode=defer")   # a deferred script runs before document end
    time.sleep(SHORT_TURBO_TIMEOUT_MS / 1000 + 0.3)
    for each in (app, deferred):
        assert not each.events.of("page_load_failed")
        assert not each.events.of("visit_failed")
        assert each.events.of("turbo_turboIsReady", isReady=True)


def test_a_turbo_added_after_the_document_never_completes_the_cold_boot(make_app, pages):
    """Turbo 7.1 started after the page finished loading fires no turbo:load, so the adapter never
    registers; Turbo exists by the time-out, so no pageLoadFailed either: the cold boot hangs."""
    app = make_app(pages.url("/late-turbo?ms=100"), turbo_load_timeout_ms=SHORT_TURBO_TIMEOUT_MS).launch()
    app.wait_for_page("window.Turbo")
    time.sleep(SHORT_TURBO_TIMEOUT_MS / 1000 + 0.3)
    assert not app.events.of("visit_completed") and not app.events.of("page_load_failed")
    assert not app.main_session.initialized


# (b) a cold boot's cross-origin redirect is cancelled and routed ------------------------------

def test_b_cold_boot_cross_origin_redirect_is_cancelled_and_routed(make_app, pages):
    target = pages.other("/turbo/c")
    app = make_app(pages.url("/redirect?to=" + target), turbo_load_timeout_ms=SHORT_TURBO_TIMEOUT_MS).launch()
    app.events.wait_for("routed_to_safari", url=target, timeout=5)
    assert app.events.of("cold_boot_cross_origin_redirect", url=target)
    assert app.events.of("cancelled", url=target, redirect=True)
    assert not app.events.of("web_view_left_app_host")
    assert app.safari_pages == [target]


def test_b_cold_boot_same_origin_redirect_is_followed(make_app, pages):
    target = pages.url("/turbo/b")
    app = make_app(pages.url("/redirect?to=" + target), turbo_load_timeout_ms=SHORT_TURBO_TIMEOUT_MS).launch()
    completed = app.events.wait_for("visit_completed", timeout=5)
    assert completed["url"] == target
    assert not app.events.of("cancelled") and not app.events.of("routed_to_safari")


# (c) routing by host ---------------------------------------------------------------------------

def test_c_routing_app_host_visits_other_hosts_go_to_safari_other_schemes_to_the_system(make_app, pages):
    app = booted(make_app, pages)
    app.tap("#to-b")
    app.events.wait_for("visit_completed", location=pages.url("/turbo/b"), visit="javascript", timeout=5)
    app.tap("#to-other-host")
    app.events.wait_for("routed_to_safari", url=pages.other("/turbo/c"), timeout=5)
    assert app.events.of("cancelled", url=pages.other("/turbo/c"), navigation_type="linkActivated")
    app.tap("#to-mail")
    app.events.wait_for("routed_to_system", url="mailto:someone@example.com", timeout=5)
    assert not app.events.of("web_view_left_app_host")
    # The router compares hosts, not origins (AppNavigationRouteDecisionHandler): another port is in-app.
    assert app.navigator.decide_route("http://127.0.0.1:1/x") == "navigate"
    assert app.navigator.decide_route("http://localhost:%d/x" % pages.port) == "safari"
    assert app.navigator.decide_route("myapp://auth-callback?token=x") == "system"


# (d) after start-up: link activations and native loads are cancelled and routed ----------------

def test_d_native_load_after_start_up_is_cancelled_and_becomes_a_turbo_visit(make_app, pages):
    app = booted(make_app, pages)
    mark = app.events.mark()
    app.run_on_main(app.main_session.web_view.load, pages.url("/turbo/b"))
    app.events.wait_for("visit_completed", location=pages.url("/turbo/b"), visit="javascript", timeout=5, after=mark)
    assert app.events.of("cancelled", url=pages.url("/turbo/b"), navigation_type="other")
    assert app.evaluate("document.getElementById('page-name').textContent") == "b"
    mark = app.events.mark()
    app.run_on_main(app.main_session.web_view.load, pages.other("/turbo/c"))
    app.events.wait_for("routed_to_safari", url=pages.other("/turbo/c"), timeout=5, after=mark)
    assert app.current_url() == pages.url("/turbo/b")


def test_d_a_turbo_visit_from_a_page_without_turbo_stalls(make_app, pages):
    app = booted(make_app, pages, stall_timeout=1.0)
    # A data-turbo=false form is a `formSubmitted` navigation: allowed, so a page without Turbo loads.
    app.tap("#native-plain-submit")
    app.wait_for_page("document.getElementById('plain')")
    app.events.wait_for("initial_page_load_failure_ignored", timeout=5)   # pageLoadFailed after start-up: ignored
    mark = app.events.mark()
    app.tap("#to-turbo")   # no Turbo to intercept: a linkActivated navigation, cancelled and proposed natively
    app.events.wait_for("visit_stalled", location=pages.url("/turbo/b"), timeout=5, after=mark)
    assert app.events.of("cancelled", url=pages.url("/turbo/b"), navigation_type="linkActivated")
    assert not app.events.of("visit_completed", location=pages.url("/turbo/b"))
    assert app.evaluate("!!document.getElementById('plain')")


# (e) a non-2xx main-frame response fails the visit ---------------------------------------------

def test_e_non_2xx_cold_boot_fails(make_app, pages):
    app = make_app(pages.url("/status/404"), turbo_load_timeout_ms=SHORT_TURBO_TIMEOUT_MS).launch()
    failed = app.events.wait_for("visit_failed", timeout=5)
    assert failed["error"] == "http 404" and failed["visit"] == "cold_boot"
    assert app.events.of("cancelled", status=404, reason="response")
    ok = booted(make_app, pages, "/turbo/a")
    assert not ok.events.of("visit_failed")


def test_e_non_2xx_turbo_visit_fails(make_app, pages):
    app = booted(make_app, pages)
    app.tap("#to-404")
    failed = app.events.wait_for("visit_failed", location=pages.url("/status/404"), timeout=5)
    assert failed["error"] == "http 404" and failed["visit"] == "javascript"


# (f) Turbo visits and form submissions use fetch ----------------------------------------------

def test_f_turbo_visit_cross_origin_redirect_fails_in_fetch_and_is_recovered_to_safari(make_app, pages):
    app = booted(make_app, pages)
    app.tap("#to-cross-redirect")
    app.events.wait_for("routed_to_safari", url=pages.other("/turbo/c"), timeout=10)
    assert app.events.of("fetch_failed"), "the fetch did not fail (CORS)"
    assert app.events.of("turbo_visitRequestFailedWithNonHttpStatusCode")
    assert app.events.of("fetch_recovery", outcome="cross_origin_redirect")
    assert not app.events.of("web_view_left_app_host")
    assert not [e for e in app.events.of("navigation") if "redirect" in e["url"]], "the visit was not a fetch"


def test_f_turbo_form_submission_cross_origin_redirect_fails_by_cors(make_app, pages):
    app = booted(make_app, pages)
    app.tap("#cross-submit")
    failed = app.events.wait_for("fetch_failed", timeout=5)
    assert "form-redirect" in failed["url"] or "localhost" in (failed["url"] or "")
    app.events.wait_for("turbo_formSubmissionFinished", timeout=5)
    time.sleep(0.3)
    assert not app.events.of("web_view_left_app_host") and not app.events.of("routed_to_safari")
    assert app.current_url() == pages.url("/turbo/a")


def test_f_a_non_turbo_form_is_a_native_navigation_and_its_cross_origin_redirect_loads_in_the_web_view(make_app, pages):
    """The counterpart: data-turbo=false is a `formSubmitted` navigation, which the policy allows, and
    WebKit's redirect keeps that type — so the other host's page loads inside the web view."""
    app = booted(make_app, pages)
    app.tap("#native-submit")
    left = app.events.wait_for("web_view_left_app_host", timeout=5)
    assert left["url"] == pages.other("/turbo/d")
    assert app.events.of("navigation", url=pages.other("/turbo/d"), navigation_type="formSubmitted", redirect=True)


# (g) the bridge -------------------------------------------------------------------------------

class Recorder:
    name = "demo"

    def __init__(self):
        self.received = []

    def on_receive(self, message, context):
        self.received.append(message)
        context.reply({"id": message["id"], "component": "demo", "event": message["event"], "data": {"ok": True}})


def test_g_queued_messages_wait_for_register_and_replies_come_back(make_app, pages):
    recorder = Recorder()
    app = booted(make_app, pages, "/bridge", components={"demo": recorder}, register_delay=0.6)
    app.events.wait_for("bridge_reply", timeout=5)
    registered = app.events.wait_for("bridge_registered")
    message = app.events.wait_for("bridge_message", component="demo")
    assert message.time >= registered.time
    assert not app.events.of("bridge_violation") and not app.events.of("bridge_message_dropped")
    assert [m["event"] for m in recorder.received] == ["connect"]
    app.wait_for_page("(window.bridgeReplies || []).length === 1")
    assert app.evaluate("window.bridgeReplies[0].data.ok") is True


def test_g_a_message_posted_before_register_is_a_violation(make_app, pages):
    app = booted(make_app, pages, "/bridge?queue=0", components={"demo": Recorder()}, register_delay=0.6)
    violation = app.events.wait_for("bridge_violation", timeout=5)
    assert violation["component"] == "demo"


def test_g_a_message_whose_metadata_url_is_not_the_web_views_is_dropped(make_app, pages):
    recorder = Recorder()
    app = booted(make_app, pages, "/bridge?metadata=" + pages.url("/elsewhere"), components={"demo": recorder})
    dropped = app.events.wait_for("bridge_message_dropped", timeout=5)
    assert dropped["reason"] == "metadata.url" and dropped["metadata_url"] == pages.url("/elsewhere")
    time.sleep(0.2)
    assert recorder.received == [] and not app.events.of("bridge_reply")


# (h) one path configuration; sources replace each other ---------------------------------------

def test_h_sources_replace_each_other_and_a_modal_rule_opens_the_modal_web_view(make_app, pages):
    bundled = {"settings": {}, "rules": [{"patterns": ["/turbo/b$"], "properties": {"context": "modal"}}]}
    pages.path_configurations["/configurations/ios_v1.json"] = {
        "settings": {}, "rules": [{"patterns": ["/turbo/c$"], "properties": {"context": "modal"}}]}
    app = booted(make_app, pages, path_configuration=[("data", bundled), ("server", pages.url("/configurations/ios_v1.json"))])
    assert app.path_configuration.properties(pages.url("/turbo/b")).get("context") is None   # replaced, not merged
    assert app.path_configuration.properties(pages.url("/turbo/c")).get("context") == "modal"
    only_bundled = booted(make_app, pages, path_configuration=[("data", bundled)])
    assert only_bundled.path_configuration.properties(pages.url("/turbo/b")).get("context") == "modal"
    # The modal context is the modal session's own web view: it cold-boots there.
    only_bundled.tap("#to-b")
    visit = only_bundled.events.wait_for("visit_completed", location=pages.url("/turbo/b"), timeout=5)
    assert visit.web_view == "modal" and visit["visit"] == "cold_boot"


def test_h_an_invalid_document_is_rejected_whole(make_app, pages):
    good = {"rules": [{"patterns": ["/turbo/b$"], "properties": {"context": "modal"}}]}
    bad = {"rules": [{"patterns": "/turbo/.*", "properties": {"context": "default"}}]}
    app = booted(make_app, pages, path_configuration=[("data", good), ("data", bad)])
    assert app.events.of("path_configuration_rejected")
    assert app.path_configuration.properties(pages.url("/turbo/b")).get("context") == "modal"


# ASWebAuthenticationSession ---------------------------------------------------------------------

def test_authentication_session_is_another_profile_and_hands_the_callback_back(make_app, pages):
    component = SignInWithOAuthComponent(callback_scheme="myapp")
    app = booted(make_app, pages, "/sign-in", components={"sign-in-with-oauth": component})
    app.events.wait_for("bridge_registered", timeout=5)
    app.tap("#sign-in")
    app.events.wait_for("auth_session_completed", url="myapp://auth-callback?token=tok123", timeout=10)
    app.events.wait_for("visit_completed", location=pages.url("/turbo/signed-in"), timeout=10)
    redeem = app.events.wait_for("component_redeem")
    assert redeem["url"] == pages.url("/redeem?verifier=v1&token=tok123")
    names = {c["name"] for c in app.cookies()}
    assert "app_session" in names and "system" not in names   # the system browser's cookie stayed there
    assert not app.events.of("web_view_left_app_host") and not app.events.of("visit_failed")


def test_authentication_session_error_callback_and_cancel_are_replied_to_the_page(make_app, pages):
    cancelled = SignInWithOAuthComponent(callback_scheme="myapp", act=lambda session: (time.sleep(0.5), session.cancel()))
    app = booted(make_app, pages, "/sign-in?result=stay", components={"sign-in-with-oauth": cancelled})
    app.events.wait_for("bridge_registered", timeout=5)
    app.tap("#sign-in")
    app.events.wait_for("auth_session_cancelled", timeout=10)
    reply = app.events.wait_for("bridge_reply", timeout=5)
    assert reply["data"] == {"error": "cancelled"}
    refused = booted(make_app, pages, "/sign-in?result=error", components={"sign-in-with-oauth": SignInWithOAuthComponent(callback_scheme="myapp")})
    refused.events.wait_for("bridge_registered", timeout=5)
    refused.tap("#sign-in")
    reply = refused.events.wait_for("bridge_reply", timeout=10)
    assert reply["data"]["error"] == "access_denied"
    assert not refused.events.of("component_redeem")


def test_authentication_session_hands_back_an_https_callback_on_its_host_and_path(make_app, pages):
    component = SignInWithOAuthComponent(callback_scheme=None, https_callback=("127.0.0.1", "/app-callback"))
    app = booted(make_app, pages, "/sign-in?result=https", components={"sign-in-with-oauth": component})
    app.events.wait_for("bridge_registered", timeout=5)
    app.tap("#sign-in")
    done = app.events.wait_for("auth_session_completed", timeout=10)
    assert done["url"] == f"https://127.0.0.1:{pages.port}/app-callback?token=tok123"
    app.events.wait_for("visit_completed", location=pages.url("/turbo/signed-in"), timeout=10)
    assert not [r for r in pages.requests if r[2].startswith("/app-callback")]   # handed back, never loaded
