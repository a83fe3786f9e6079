"""The hybrid journey on the example Rails app under the Hotwire Native iOS emulator.

Launch on the Rails app (one origin: Rails at /, Gatehouse under /auth) → "Sign in with Google /
Apple / GitHub" → ASWebAuthenticationSession (its own profile) → back in the app → the web view is
signed in to the *Rails* app (`/me` 200), with no visit failing and nothing leaving the web view but
the authentication session. Then the hand-off's other cases (an expired token, a retry).
"""
import json
import time

import pytest

from emulator_fixtures import browser, make_app  # noqa: F401  (fixtures)

from journey_support import RailsStack, SystemBrowserUser, make_hybrid_app, query_of


@pytest.fixture(scope="module")
def stack():
    s = RailsStack(shape="one-origin")
    yield s
    s.stop()


def assert_stayed_in_the_web_view(app):
    """Nothing but the authentication session left the web view; no visit failed; the bridge was used right."""
    events = app.events
    assert not events.of("web_view_left_app_host"), events.of("web_view_left_app_host")
    assert not events.of("routed_to_safari"), events.of("routed_to_safari")
    assert not events.of("routed_to_system"), events.of("routed_to_system")
    assert not events.of("visit_failed"), events.of("visit_failed")
    assert not events.of("page_load_failed"), events.of("page_load_failed")
    assert not events.of("bridge_violation"), events.of("bridge_violation")
    assert not events.of("bridge_message_dropped"), events.of("bridge_message_dropped")
    assert not events.of("emulator_error"), events.of("emulator_error")


def launch(app, stack):
    app.launch()
    app.events.wait_for("visit_completed", location=stack.app_url + "/session/new", timeout=20)
    app.events.wait_for("bridge_registered", timeout=10)
    return app


def start_provider(app, provider, wait_for_bridge=True, rails_button=None):
    """Taps the Rails app's "Sign in with <provider>" (or `rails_button`). With the product's `provider=`
    hint, Gatehouse's sign-in page starts that provider through the bridge by itself; without one (the
    plain "Sign in", or a Gatehouse that ignores the hint) the user taps the provider on Gatehouse's page,
    as soon as it shows (`wait_for_bridge=False`) or once the bridge knows the component."""
    mark = app.events.mark()
    app.tap(rails_button or f"#sign-in-{provider}")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if any(e.kind == "bridge_message" for e in app.events.all()[mark:]):
            return
        hinted = "/sign-in" in app.current_url() and f"provider={provider}" in app.current_url()
        if not hinted:
            try:
                ready = " && window.nativeBridge.supportsComponent('sign-in-with-oauth')" if wait_for_bridge else ""
                if app.evaluate(f"!!document.querySelector('form[action$=\"/auth/{provider}\"] button')"
                                " && document.readyState !== 'loading' && !!window.nativeBridge" + ready):
                    app.tap(f"form[action$='/auth/{provider}'] button")
                    app.events.wait_for("bridge_message", component="sign-in-with-oauth", after=mark, timeout=15)
                    return
            except Exception:
                pass
        time.sleep(0.1)
    raise AssertionError("the provider never reached the bridge:\n" + app.events.describe())


def signed_in(app, stack, timeout=30):
    """Waits until the web view shows the Rails app signed in, and returns /me's status."""
    app.wait_for_page("document.getElementById('signed-in-as')", timeout=timeout)
    app.wait_for_url(lambda url: url.startswith(stack.app_url + "/") and "/auth/" not in url)
    return app.fetch_status("/me")


@pytest.mark.parametrize("provider", ["google", "apple", "github"])
def test_sign_in_with_a_provider_ends_signed_in_to_the_rails_app(browser, stack, provider):
    user = SystemBrowserUser(f"{provider}.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        start_provider(app, provider)
        completed = app.events.wait_for("auth_session_completed", timeout=30)
        assert "token" in query_of(completed["url"]), completed
        assert signed_in(app, stack) == 200
        assert app.evaluate("document.getElementById('signed-in-as').textContent") == f"{provider}.journey@example.com"
        assert_stayed_in_the_web_view(app)
        assert len(app.events.of("auth_session_started")) == 1
        # The system browser's cookies stayed in its own profile; the app's web view has the Rails session.
        assert any(c["name"].startswith("_") or "session" in c["name"] for c in app.cookies())
    finally:
        app.close()


def test_sign_in_with_gatehouses_path_rules_in_the_apps_configuration(browser, stack):
    """The product's path configuration carries Gatehouse's rules (sign-in pages modal, the redeem
    replacing the current screen in the default context): the routed redeem follows them, and the
    journey still ends signed in."""
    user = SystemBrowserUser("modal.journey@example.com")
    rules = [("server", stack.issuer + "/configurations/ios_v1.json")]
    app = launch(make_hybrid_app(browser, stack, user, path_configuration=rules), stack)
    try:
        assert app.path_configuration.loaded_from == stack.issuer + "/configurations/ios_v1.json"
        start_provider(app, "google")
        assert signed_in(app, stack) == 200
        redeem = app.events.wait_for("component_redeem")["url"]
        routed = app.events.of("routed_in_app", url=redeem)
        assert routed and routed[0]["context"] == app.path_configuration.properties(redeem).get("context", "default")
        assert routed[0]["presentation"] == app.path_configuration.properties(redeem).get("presentation", "default")
        assert_stayed_in_the_web_view(app)
    finally:
        app.close()


def test_link_a_provider_from_inside_the_app(browser, stack):
    user = SystemBrowserUser("linker.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        start_provider(app, "google")
        assert signed_in(app, stack) == 200
        mark = app.events.mark()
        app.run_on_main(app.navigator.route, stack.issuer + "/account")
        app.wait_for_page("document.querySelector('form[action$=\"/auth/github/link\"]')", timeout=15)
        user.email = "linker.github@example.com"
        app.tap("form[action$='/auth/github/link'] button")
        app.events.wait_for("auth_session_completed", after=mark, timeout=30)
        app.wait_for_page("/GitHub/.test(document.body.innerText) && !document.querySelector('form[action$=\"/auth/github/link\"]')",
                          timeout=20)
        assert_stayed_in_the_web_view(app)
        assert app.fetch_status("/me") == 200
    finally:
        app.close()


def test_cancelling_at_the_provider_returns_an_error_to_the_app(browser, stack):
    user = SystemBrowserUser("cancel.journey@example.com", at_provider="cancel")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        start_provider(app, "google")
        completed = app.events.wait_for("auth_session_completed", timeout=30)
        assert "error" in query_of(completed["url"]) and "token" not in query_of(completed["url"]), completed
        reply = app.events.wait_for("bridge_reply", timeout=10)
        assert reply["data"]["error"]
        time.sleep(0.5)
        assert not app.events.of("component_redeem")
        assert app.fetch_status("/me") == 401
        assert_stayed_in_the_web_view(app)
    finally:
        app.close()


def test_account_exists_returns_an_error_to_the_app(browser, stack):
    stack.create_user("exists.journey@example.com", "a long enough password", name="Existing")
    user = SystemBrowserUser("exists.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        start_provider(app, "google")
        completed = app.events.wait_for("auth_session_completed", timeout=30)
        assert "error" in query_of(completed["url"]), f"the system browser was not handed back: {user.seen}"
        reply = app.events.wait_for("bridge_reply", timeout=10)
        assert reply["data"]["error"]
        assert app.fetch_status("/me") == 401
        assert_stayed_in_the_web_view(app)
    finally:
        app.close()


def test_a_reused_hand_off_token_is_refused(browser, stack):
    user = SystemBrowserUser("reuse.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        start_provider(app, "google")
        app.events.wait_for("bridge_message", component="sign-in-with-oauth", timeout=20)
        pending = app.evaluate("localStorage.getItem('gatehouse.handoff')")
        assert pending, "the web side kept no verifier"
        assert signed_in(app, stack) == 200
        redeem = app.events.wait_for("component_redeem")["url"]
        # The same callback comes again, with the same verifier in place: the token is spent.
        app.evaluate("localStorage.setItem('gatehouse.handoff', %s)" % json.dumps(pending))
        mark = app.events.mark()
        app.run_on_main(app.main_session.web_view.load, redeem)
        refused = app.events.wait_for("response", after=mark, timeout=20,
                                      predicate=lambda e: "/native/redeem" in e["url"] and e["status"] >= 400)
        assert refused["status"] == 400
        app.wait_for_page("Array.from(document.querySelectorAll('[role=alert]')).some((e) => !e.hidden)", timeout=10)
        assert not app.events.of("web_view_left_app_host")
    finally:
        app.close()


def test_a_tap_before_the_bridge_is_ready_waits_and_then_signs_in(browser, stack):
    user = SystemBrowserUser("early.journey@example.com")
    app = make_hybrid_app(browser, stack, user, register_delay=1.0)
    try:
        app.launch()
        app.events.wait_for("visit_completed", location=stack.app_url + "/session/new", timeout=20)
        # Tap the provider on Gatehouse's page as soon as it shows, while native has not registered yet.
        start_provider(app, "google", wait_for_bridge=False, rails_button="#sign-in-gatehouse")
        assert signed_in(app, stack, timeout=40) == 200
        message = app.events.wait_for("bridge_message", component="sign-in-with-oauth")
        page = message["metadata_url"]
        tap = [e for e in app.events.of("tap") if e["url"] == page]
        registered = [e for e in app.events.of("bridge_registered") if e["url"] == page]
        assert tap and registered and tap[0].time < registered[0].time, "the tap did not come before register()"
        assert registered[0].time <= message.time, "the click reached native before register() on its page"
        assert_stayed_in_the_web_view(app)
    finally:
        app.close()


def redeem_refusals(app, after=0):
    return [e for e in app.events.all()[after:]
            if e.kind == "response" and "/native/redeem" in e["url"] and (e["status"] or 0) >= 400]


def test_a_wrong_verifier_is_refused_and_spends_the_token(browser, stack):
    user = SystemBrowserUser("verifier.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        saved = {}

        def tamper_then_act(session):
            # Before the app comes back, the web view's stored verifier is replaced.
            saved["pending"] = app.evaluate("localStorage.getItem('gatehouse.handoff')")
            app.evaluate("(() => { const k = 'gatehouse.handoff'; const v = JSON.parse(localStorage.getItem(k));"
                         " v.verifier = 'A'.repeat(43); localStorage.setItem(k, JSON.stringify(v)); })()")
            user(session)

        app.component.act = tamper_then_act
        start_provider(app, "google")
        redeem = app.events.wait_for("component_redeem", timeout=30)["url"]
        app.events.wait_for("response", timeout=20, predicate=lambda e: "/native/redeem" in e["url"] and (e["status"] or 0) >= 400)
        assert [e["status"] for e in redeem_refusals(app)] == [400]
        app.wait_for_page("Array.from(document.querySelectorAll('[role=alert]')).some((e) => !e.hidden)", timeout=10)
        assert app.fetch_status("/me") == 401
        # The right verifier afterwards does not help: the wrong one spent the token.
        app.evaluate("localStorage.setItem('gatehouse.handoff', %s)" % json.dumps(saved["pending"]))
        mark = app.events.mark()
        app.run_on_main(app.main_session.web_view.load, redeem)
        app.events.wait_for("response", after=mark, timeout=20,
                            predicate=lambda e: "/native/redeem" in e["url"] and (e["status"] or 0) >= 400)
        assert app.fetch_status("/me") == 401
        assert not app.events.of("web_view_left_app_host")
    finally:
        app.close()


# An expired hand-off token. The Gatehouse of this stack gives hand-off tokens a short
# life (`native.handoff_ttl_seconds`), and the app is held back before its redeem until that life has
# certainly passed: the callback comes after the token was minted, so waiting TTL + margin from the
# callback always expires it — no race with the server's clock. The retry redeems at once; the TTL
# leaves it far more time than a redeem takes.
HANDOFF_TTL = 6


@pytest.fixture(scope="module")
def short_handoff_stack():
    s = RailsStack(shape="one-origin", config={"native": {"handoff_ttl_seconds": HANDOFF_TTL}})
    yield s
    s.stop()


def test_an_expired_hand_off_token_is_refused_and_a_retry_signs_in(browser, short_handoff_stack):
    stack = short_handoff_stack
    user = SystemBrowserUser("expired.journey@example.com")
    app = launch(make_hybrid_app(browser, stack, user), stack)
    try:
        held = {}

        def hold_until_expired(callback):
            held["callback"] = callback
            time.sleep(HANDOFF_TTL + 1.0)

        app.component.before_redeem = hold_until_expired
        start_provider(app, "google")
        completed = app.events.wait_for("auth_session_completed", timeout=30)
        assert "token" in query_of(completed["url"]), completed
        redeem = app.events.wait_for("component_redeem", timeout=HANDOFF_TTL + 20)["url"]
        refused = app.events.wait_for("response", timeout=20,
                                      predicate=lambda e: "/native/redeem" in e["url"] and (e["status"] or 0) >= 400)
        # The documented answer: a 400 page in the web view saying the link expired, start again.
        assert refused["status"] == 400
        app.wait_for_page("/expired or was already used/.test(document.body.innerText)", timeout=10)
        assert app.current_url().startswith(stack.issuer + "/native/redeem"), app.current_url()
        # Nothing is signed in: not the Rails app, not Gatehouse in the web view.
        assert app.fetch_status("/me") == 401
        assert app.fetch_status(stack.issuer + "/native/session") == 401
        assert not app.events.of("web_view_left_app_host")
        assert not app.events.of("routed_to_safari") and not app.events.of("emulator_error")

        # The retry: back to the sign-in screen, the same provider, redeemed at once — signed in.
        app.component.before_redeem = None
        mark = app.events.mark()
        app.run_on_main(app.navigator.route, stack.app_url + "/session/new")
        app.events.wait_for("visit_completed", after=mark, location=stack.app_url + "/session/new", timeout=20)
        start_provider(app, "google")
        # Back on the Rails app (where it lands: /me, which the signed-out check above asked for, is Rails'
        # remembered return path), signed in as the user.
        app.wait_for_page(f"location.href.startsWith({stack.app_url + '/'!r}) && !location.pathname.startsWith('/auth/')",
                          timeout=30)
        me = app.evaluate("fetch('/me', {credentials: 'same-origin'}).then((r) => r.status === 200 ? r.json() : {status: r.status})",
                          await_promise=True)
        assert me.get("email") == "expired.journey@example.com", me
        # How long the retry's token lived before its redeem (the margin the short TTL leaves), for the record.
        completed_again = [e for e in app.events.all()[mark:] if e.kind == "auth_session_completed"]
        posted = [e for e in app.events.all()[mark:] if e.kind == "navigation" and "/native/redeem" in e["url"]
                  and e.get("method") == "POST"]
        if completed_again and posted:
            print(f"retry: callback to redeem POST {posted[-1].time - completed_again[-1].time:.2f} s (TTL {HANDOFF_TTL} s)")
        retried = [e for e in app.events.all()[mark:] if e.kind == "component_redeem"]
        assert len(retried) == 1 and retried[0]["url"] != redeem, "a new token, not the expired one"
        assert len(app.events.of("auth_session_started")) == 2
        later = app.events.all()[mark:]
        for kind in ("web_view_left_app_host", "routed_to_safari", "routed_to_system", "visit_failed", "page_load_failed",
                     "bridge_violation", "bridge_message_dropped", "emulator_error"):
            assert not [e for e in later if e.kind == kind], (kind, app.events.describe())
    finally:
        app.close()
