"""Generic OIDC end to end against a third-party OpenID provider from PyPI (oidc-provider-mock), in headless Chromium.

The mock takes its issuer from the Host header, so everything talks to it as 127.0.0.1. It does not check
PKCE, but it does sign real RS256 id_tokens, serve discovery and a JWKS, and keep per-subject claims
(set with `PUT /users/<sub>`), which is what Gatehouse's generic OIDC provider is tested against here.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, GatehouseProcess, free_port, screenshot
from test_accounts import click_and_wait

PROVIDER_NAME = "Mock ID"


class OIDCMock:
    """`python3 -m oidc_provider_mock` on a free loopback port."""

    def __init__(self):
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.issuer + "/.well-known/openid-configuration", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("oidc-provider-mock did not start")

    def set_user(self, sub, claims):
        request = urllib.request.Request(f"{self.issuer}/users/{sub}", data=json.dumps(claims).encode(), method="PUT",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as r:
            assert r.status == 204

    def stop(self):
        # uvicorn can hang on a keep-alive connection after SIGTERM: give it a second, then SIGKILL.
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


@pytest.fixture
def mock():
    provider = OIDCMock()
    yield provider
    provider.stop()


def gatehouse_config(mock):
    return {"providers": {"oidc": [{"id": "mock", "name": PROVIDER_NAME, "issuer": mock.issuer,
                                    "client_id": "gatehouse-e2e", "client_secret": "e2e-secret"}]}}


@pytest.fixture
def server(mock):
    process = GatehouseProcess(config=gatehouse_config(mock))
    yield process
    process.stop()


def counts(server):
    """(users, external identities) straight from the server's SQLite file: proof of what was written."""
    with sqlite3.connect(f"{server.dir}/gatehouse.sqlite") as db:
        return (db.execute("SELECT count(*) FROM users").fetchone()[0],
                db.execute("SELECT count(*) FROM external_identities").fetchone()[0])


def start_at_mock(driver, server, mock):
    """Sign-in page → "Sign in with Mock ID" → the mock's authorize page."""
    driver.get(server.url + "/sign-in")
    button = driver.find_element(By.CSS_SELECTOR, 'form[action="/auth/mock"] button')
    assert button.text == f"Sign in with {PROVIDER_NAME}"
    click_and_wait(driver, button)
    assert driver.current_url.startswith(mock.issuer + "/oauth2/authorize?")


def authorize_as(driver, sub):
    driver.find_element(By.CSS_SELECTOR, 'input[name="sub"]').send_keys(sub)
    click_and_wait(driver, driver.find_element(By.XPATH, '//button[normalize-space()="Authorize"]'))


def assert_on_sign_in_page(driver, server, message):
    notice = driver.find_element(By.CSS_SELECTOR, 'p.notice.error[role="alert"]')
    assert message in notice.text, notice.text
    assert driver.current_url.startswith(server.url)
    assert driver.find_elements(By.CSS_SELECTOR, 'form[action="/auth/mock"] button'), "the sign-in page with its buttons"


def test_sign_in_twice_with_third_party_oidc_provider(mock, server, browsers):
    mock.set_user("ada-1815", {"email": "ada@example.com", "email_verified": True, "name": "Ada Lovelace"})
    driver = browsers()
    start_at_mock(driver, server, mock)
    authorize_as(driver, "ada-1815")
    screenshot(driver, "oidc-mock-signed-in")
    assert driver.current_url == server.url + "/account"
    assert "ada@example.com" in driver.page_source
    assert counts(server) == (1, 1)

    # The same subject in a fresh browser signs into the same account.
    again = browsers()
    start_at_mock(again, server, mock)
    authorize_as(again, "ada-1815")
    assert again.current_url == server.url + "/account"
    assert "ada@example.com" in again.page_source
    assert counts(server) == (1, 1)


def test_denied_at_provider_lands_on_sign_in_page(mock, server, browsers):
    driver = browsers()
    start_at_mock(driver, server, mock)
    click_and_wait(driver, driver.find_element(By.XPATH, '//button[@value="deny"]'))
    screenshot(driver, "oidc-mock-denied")
    assert_on_sign_in_page(driver, server, "Sign-in was cancelled")
    assert counts(server) == (0, 0)


def test_wrong_state_lands_on_sign_in_page(mock, server, browsers):
    driver = browsers()
    start_at_mock(driver, server, mock)   # a real flow exists, but the callback names another state
    driver.get(server.url + "/auth/mock/callback?code=forged-code&state=forged-state")
    assert_on_sign_in_page(driver, server, "not valid any more")
    assert counts(server) == (0, 0)


def test_missing_email_lands_on_sign_in_page_and_writes_nothing(mock, server, browsers):
    # A subject with no email claim at all: neither the id_token nor userinfo carries one.
    mock.set_user("no-mail", {"name": "Nobody"})
    driver = browsers()
    start_at_mock(driver, server, mock)
    authorize_as(driver, "no-mail")
    screenshot(driver, "oidc-mock-missing-email")
    assert_on_sign_in_page(driver, server, "did not share an email address")
    assert counts(server) == (0, 0)
    assert driver.find_elements(By.CSS_SELECTOR, 'form[action="/auth/mock"]')
    driver.get(server.url + "/account")
    assert "/sign-in" in driver.current_url, "no session was started"


def test_providers_check_reports_ok(mock, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(gatehouse_config(mock)))
    result = subprocess.run([str(BINARY), "providers", "check", "--config", str(config)],
                            capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "mock: OK" in result.stdout
    assert f"discovery at {mock.issuer}/.well-known/openid-configuration names issuer {mock.issuer}" in result.stdout
    assert "usable signing key" in result.stdout
    assert "all 1 provider OK" in result.stdout
