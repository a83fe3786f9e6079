"""Link CSRF through the native link ticket: an attacker signed in to their own account in the app mints a link
ticket (the request the bridge script makes, in the attacker's web view, with a challenge whose verifier the
attacker keeps) and sends the victim the `/native/start?…&link=` URL. The victim opens it in their system browser
(their own app's ASWebAuthenticationSession: another browser profile), signs in to Google there and answers the
rendered "Link Google …?" question. Whether they continue or cancel, and when their own app redeems the hand-off
in their own signed-in web view, the victim's Google identity is linked to no account. The honest flow — the
attacker's own app linking the attacker's own Google — still links."""
import json
import os
import sys
import urllib.parse

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "native"))
from conftest import GatehouseProcess  # noqa: E402
from support import SignInWithOAuthComponent, assert_no_broken_rule, chromium, make_app, play_provider  # noqa: E402,F401

APP = "demo-native"
SCHEME = "gatehouse-demo"
VERIFIER = "attacker-keeps-this-verifier-0123456789abcdefghijk"   # 50 characters of the verifier alphabet


@pytest.fixture(scope="module")
def gatehouse():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"})
    yield process
    process.stop()


def launch(make_app, gatehouse, component):
    return make_app(gatehouse.url + "/sign-in?return_to=%2Faccount", components={"sign-in-with-oauth": component},
                    application_prefix=f"Gatehouse-App/{APP}",
                    path_configuration=[("server", gatehouse.url + "/configurations/ios_v1.json")],
                    turbo_load_timeout_ms=4000, stall_timeout=8).launch()


def signed_in_app(make_app, gatehouse, github_email):
    """An app whose web view signed in with GitHub through the bridge, resting on /account."""
    component = SignInWithOAuthComponent(callback_scheme=SCHEME, act=play_provider(github_email))
    app = launch(make_app, gatehouse, component)
    app.wait_for_page("document.querySelector('form[action=\"/auth/github\"] button')")
    app.tap('form[action="/auth/github"] button')
    app.wait_for_page("location.pathname === '/account' && document.querySelector('form[action=\"/auth/google/link\"] button')", timeout=40)
    return app, component


def providers_of(app, gatehouse):
    jar = {c["name"]: c["value"] for c in app.cookies()}
    status = requests.get(gatehouse.url + "/native/session", cookies=jar, timeout=5)
    assert status.status_code == 200, status.text
    return sorted(status.json()["providers"])


def challenge_of(app, verifier):
    return app.evaluate(f"""(async () => {{
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode({json.dumps(verifier)})));
        let text = ""; for (const byte of digest) text += String.fromCharCode(byte);
        return btoa(text).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }})()""", await_promise=True)


def mint_ticket(app, challenge):
    """What the bridge script does on "Link Google", stopped before the system browser opens: the attacker keeps
    the ticket (and the verifier) instead."""
    return app.evaluate(f"""(async () => {{
        const csrf = document.querySelector('form[action="/auth/google/link"] input[name="csrf_token"]').value;
        const body = new URLSearchParams({{ csrf_token: csrf, app: {json.dumps(APP)}, challenge: {json.dumps(challenge)} }});
        const response = await fetch("/native/link-ticket", {{ method: "POST", body, credentials: "same-origin",
                                                              referrerPolicy: "same-origin", headers: {{ Accept: "application/json" }} }});
        return (await response.json()).ticket || ("status " + response.status);
    }})()""", await_promise=True)


@pytest.mark.parametrize("answer", ["continue", "cancel"])
def test_a_link_ticket_sent_to_a_victim_links_nothing(make_app, gatehouse, answer):
    attacker, _ = signed_in_app(make_app, gatehouse, f"attacker.{answer}@example.com")
    challenge = challenge_of(attacker, VERIFIER)
    ticket = mint_ticket(attacker, challenge)
    assert len(ticket) == 43, ticket
    start = gatehouse.url + "/native/start?" + urllib.parse.urlencode(
        {"provider": "google", "app": APP, "challenge": challenge, "link": ticket})

    # The victim, signed in to their own account in their own app, opens the link in their system browser.
    victim, _ = signed_in_app(make_app, gatehouse, f"victim.{answer}@example.com")
    session = victim.start_authentication_session(start, SCHEME)
    play_provider(f"victim.google.{answer}@example.com", confirm=None)(session)
    assert session.wait_for_page("document.querySelector('#native-confirm')", timeout=20), "the rendered question"
    question = session.evaluate("document.body.innerText")
    assert "Link Google" in question
    # The finding itself first (against an old binary this is where the test fails): nothing linked yet.
    assert providers_of(attacker, gatehouse) == ["github"], "nothing linked before the question is answered"
    session.click(f'#native-confirm button[value="{answer}"]')
    callback = session.wait(timeout=30)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    assert providers_of(attacker, gatehouse) == ["github"], "nothing linked by the answer"

    if answer == "cancel":
        assert query.get("error") == "access_denied" and "token" not in query, callback
    else:
        # The victim's app redeems the hand-off in the victim's web view, which holds a verifier of its own (as after
        # a sign-in it started itself): the rendered redeem form is posted by the page's script, and refused.
        assert "token" in query, callback
        victim.evaluate(f"""localStorage.setItem("gatehouse.handoff", JSON.stringify(
            {{ verifier: "victim-own-verifier-0123456789abcdefghijklmnopqrstu", challenge: "x", app: {json.dumps(APP)}, created: Date.now() }}))""")
        redeem = gatehouse.url + "/native/redeem?" + urllib.parse.urlencode({"token": query["token"]})
        victim.run_on_main(victim.visible_web_view.load, redeem)
        victim.wait_for_page("document.body.innerText.includes('started somewhere else')", timeout=20)
    assert providers_of(attacker, gatehouse) == ["github"], "the victim's Google is not the attacker's"
    assert providers_of(victim, gatehouse) == ["github"]
    assert f"victim.google.{answer}@example.com" in question, "the question names the provider account it would link"
    assert_no_broken_rule(attacker)


def test_the_honest_link_from_the_users_own_app_still_links(make_app, gatehouse):
    app, component = signed_in_app(make_app, gatehouse, "honest.github@example.com")
    component.act = play_provider("honest.google@example.com")
    app.tap('form[action="/auth/google/link"] button')
    app.wait_for_page("location.search.includes('identity-linked')", timeout=40)
    assert_no_broken_rule(app)
    assert providers_of(app, gatehouse) == ["github", "google"]
