"""Gatehouse tells the example Rails app (docs/events.md), through gatehouse-rails' endpoints and the app's hooks: a
back-channel logout ends its session, the signed `user.deleted` webhook removes its user (a replay changes nothing,
a forged or stale one is refused), a delivery queued while the app is down arrives after a Gatehouse restart, and
step-up (`max_age`, `acr_values`) asks for a fresh sign-in. Two-hosts shape (Gatehouse on 127.0.0.1, the app on localhost); deliveries come from the maintenance job
runner (interval 1 s here), never from the request that made the change."""
import base64
import hashlib
import hmac
import json
import pathlib
import sqlite3
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import make_browser  # noqa: E402
from rails_app import RailsStack  # noqa: E402
from test_rails_app import PASSWORD, app_sign_in_with_password, click_and_wait, fill, me, wait_for_url  # noqa: E402

WEBHOOK_SECRET = "rails-webhook-secret-0123456789abcdefghijkl"
STEP_UP_MAX_AGE = 8  # seconds: the example's security page wants a sign-in at most this old
STEP_UP_ACR = "urn:gatehouse:acr:sfa"  # any sign-in: this test is about max_age
ADMIN_ID, ADMIN_SECRET = "backoffice", "backoffice-secret-0123456789abcdefghijkl"


@pytest.fixture(scope="module")
def stack():
    s = RailsStack(
        shape="two-hosts", demo=False,
        client_settings=lambda app: {"backchannel_logout_uri": app + "/gatehouse/backchannel-logout"},
        config=lambda app: {
            "webhooks": [{"url": app + "/gatehouse/webhooks", "secret": WEBHOOK_SECRET,
                          "events": ["user.deleted", "user.disabled", "user.updated"]}],
            "maintenance": {"interval_seconds": 1},
            "clients": [{"id": ADMIN_ID, "type": "confidential", "secret": ADMIN_SECRET, "grants": ["client_credentials"],
                         "scopes": ["admin"], "admin": True}],
        },
        rails_env={"GATEHOUSE_WEBHOOK_SECRET": WEBHOOK_SECRET, "STEP_UP_MAX_AGE": str(STEP_UP_MAX_AGE),
                   "STEP_UP_ACR_VALUES": STEP_UP_ACR})
    yield s
    s.stop()


@pytest.fixture
def browser():
    driver = make_browser()
    yield driver
    driver.quit()


def rails_rows(stack, sql, *args):
    with sqlite3.connect(stack.rails_database, timeout=10) as db:
        return db.execute(sql, args).fetchall()


def eventually(predicate, timeout=20, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError(f"{message} did not happen within {timeout}s")


def admin(stack, method, path):
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "scope": "admin"}).encode()
    request = urllib.request.Request(stack.issuer + "/oauth/token", data=form, headers={
        "Authorization": "Basic " + base64.b64encode(f"{ADMIN_ID}:{ADMIN_SECRET}".encode()).decode()})
    with urllib.request.urlopen(request, timeout=10) as r:
        token = json.load(r)["access_token"]
    request = urllib.request.Request(stack.issuer + "/admin/v1" + path, method=method, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as r:
        body = r.read()
        return r.status, (json.loads(body) if body else None)


def user_id(stack, email):
    _, page = admin(stack, "GET", "/users?q=" + urllib.parse.quote(email))
    return next(u["id"] for u in page["users"] if u["email"] == email)


def test_signing_out_at_gatehouse_ends_the_rails_session(stack, browser):
    stack.create_user("ada@example.com", PASSWORD, name="Ada Lovelace")
    app_sign_in_with_password(browser, stack)
    assert me(browser, stack)["email"] == "ada@example.com"
    # The app remembered which Gatehouse session this one came from (the ID token's sid).
    [(sid,)] = rails_rows(stack, "SELECT sessions.sid FROM sessions JOIN users ON users.id = sessions.user_id "
                                 "WHERE users.email = ?", "ada@example.com")
    assert sid and len(sid) == 22
    # Sign out at Gatehouse itself (its own page, not the app's button): only the back-channel can tell the app.
    browser.get(stack.issuer + "/account")
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, 'form[action$="/sign-out"] button'))
    eventually(lambda: not rails_rows(stack, "SELECT id FROM sessions WHERE sid = ?", sid), message="the back-channel logout")
    assert me(browser, stack) is None, "the app's session ended"
    log = "".join(stack.gatehouse.lines)
    assert '"event":"logout"' in log and '"outcome":"delivered"' in log
    assert WEBHOOK_SECRET not in log, "the webhook secret is never logged"


def test_deleting_the_user_with_the_admin_api_removes_the_rails_user(stack, browser):
    stack.create_user("bob@example.com", PASSWORD, name="Bob")
    app_sign_in_with_password(browser, stack, email="bob@example.com")
    assert rails_rows(stack, "SELECT id FROM users WHERE email = ?", "bob@example.com")
    status, _ = admin(stack, "DELETE", "/users/" + user_id(stack, "bob@example.com"))
    assert status == 204
    eventually(lambda: not rails_rows(stack, "SELECT id FROM users WHERE email = ?", "bob@example.com"),
               message="the user.deleted webhook")
    assert me(browser, stack) is None
    [(count,)] = rails_rows(stack, "SELECT COUNT(*) FROM gatehouse_events WHERE event_type = 'user.deleted'")
    assert count == 1


def test_a_delivery_queued_while_the_app_is_down_arrives_after_a_gatehouse_restart(stack, browser):
    stack.create_user("carol@example.com", PASSWORD, name="Carol")
    app_sign_in_with_password(browser, stack, email="carol@example.com")
    assert rails_rows(stack, "SELECT id FROM users WHERE email = ?", "carol@example.com")
    stack.stop_rails()
    status, _ = admin(stack, "DELETE", "/users/" + user_id(stack, "carol@example.com"))
    assert status == 204
    # The job runner tries and fails (the app is down), then Gatehouse stops with the delivery still queued.
    eventually(lambda: any('"event":"user.deleted"' in line and '"outcome":"failed' in line for line in stack.gatehouse.lines),
               timeout=15, message="a failed attempt")
    stack.gatehouse.stop()
    stack.start_rails()
    assert rails_rows(stack, "SELECT id FROM users WHERE email = ?", "carol@example.com"), "nothing arrived while Gatehouse was down"
    stack.gatehouse.restart()
    eventually(lambda: not rails_rows(stack, "SELECT id FROM users WHERE email = ?", "carol@example.com"), timeout=30,
               message="the delivery after the restart")


def post_webhook(stack, body, timestamp=None, secret=WEBHOOK_SECRET):
    """A delivery signed as Gatehouse signs them (HMAC-SHA256 over "timestamp.body"); returns the HTTP status."""
    timestamp = str(int(time.time()) if timestamp is None else timestamp)
    signature = "v1=" + hmac.new(secret.encode(), f"{timestamp}.{body}".encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(stack.app_url + "/gatehouse/webhooks", data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "Gatehouse-Timestamp": timestamp, "Gatehouse-Signature": signature})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_gems_webhook_endpoint_applies_an_event_once_and_refuses_forged_or_stale_ones(stack, browser):
    stack.create_user("dora@example.com", PASSWORD, name="Dora")
    app_sign_in_with_password(browser, stack, email="dora@example.com")
    [(sub,)] = rails_rows(stack, "SELECT gatehouse_sub FROM users WHERE email = ?", "dora@example.com")
    renamed = json.dumps({"id": "evt_rename_dora", "type": "user.updated",
                          "data": {"user": {"id": sub, "email": "dora@example.com", "name": "Dora the Second"}}})
    # Forged (another secret) and stale (six minutes old, correctly signed) deliveries change nothing.
    assert post_webhook(stack, renamed, secret="not-the-secret-0123456789abcdefghijkl") == 401
    assert post_webhook(stack, renamed, timestamp=int(time.time()) - 360) == 401
    assert rails_rows(stack, "SELECT name FROM users WHERE gatehouse_sub = ?", sub) == [("Dora",)]
    assert post_webhook(stack, renamed) == 200
    assert rails_rows(stack, "SELECT name FROM users WHERE gatehouse_sub = ?", sub) == [("Dora the Second",)]
    # The same event id again (a redelivery, even with other content): acknowledged, not applied twice.
    with sqlite3.connect(stack.rails_database, timeout=10) as db:
        db.execute("UPDATE users SET name = 'Dora' WHERE gatehouse_sub = ?", (sub,))
    assert post_webhook(stack, renamed.replace("Second", "Third")) == 200
    assert rails_rows(stack, "SELECT name FROM users WHERE gatehouse_sub = ?", sub) == [("Dora",)]
    assert rails_rows(stack, "SELECT COUNT(*) FROM gatehouse_events WHERE event_id = 'evt_rename_dora'") == [(1,)]
    assert post_webhook(stack, "not json") == 400


def test_step_up_asks_gatehouse_for_a_fresh_sign_in_before_the_security_page(stack, browser):
    stack.create_user("erin@example.com", PASSWORD, name="Erin")
    app_sign_in_with_password(browser, stack, email="erin@example.com")
    browser.get(stack.app_url + "/account/security")
    first = browser.find_element(By.ID, "recently-signed-in").text   # just signed in: no step-up
    time.sleep(STEP_UP_MAX_AGE + 1.5)
    browser.get(stack.app_url + "/account/security")
    step_up = browser.find_element(By.CSS_SELECTOR, "form#step-up")
    assert step_up.find_element(By.CSS_SELECTOR, 'input[name="max_age"]').get_attribute("value") == "0"
    assert step_up.find_element(By.CSS_SELECTOR, 'input[name="acr_values"]').get_attribute("value") == STEP_UP_ACR
    click_and_wait(browser, step_up.find_element(By.CSS_SELECTOR, "button, input[type=submit]"))
    # max_age=0: Gatehouse's session is still there, yet it asks for the password again.
    assert browser.current_url.startswith(stack.issuer + "/sign-in"), browser.current_url
    fill(browser, email="erin@example.com", password=PASSWORD)
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, 'form[action$="/sign-in"] button[type=submit]'))
    wait_for_url(browser, lambda u: u == stack.app_url + "/account/security")
    second = browser.find_element(By.ID, "recently-signed-in").text
    assert second != first, "the new session carries the new auth_time"
    log = "".join(stack.gatehouse.lines)
    assert '"path":"/oauth/authorize"' in log
