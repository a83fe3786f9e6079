"""The native journeys' fixtures and helpers: the Hotwire Native emulator (tests/hotwire/emulator) on one
Chromium per module, one app (its own cookie store) per test; playing the user in the system browser
(the simulated provider's page, then Gatehouse's "Continue to <app>?"); and the checks every journey
makes on the emulator's record."""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hotwire"))
sys.path.insert(0, os.path.join(HERE, ".."))

from emulator import Browser, HotwireApp, SignInWithOAuthComponent  # noqa: E402,F401

# Anything here means the journey broke one of Hotwire Native's rules (tests/hotwire/README.md).
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
