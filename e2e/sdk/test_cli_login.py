"""`gatehouse login` / `token` / `logout` against a real Gatehouse: the client SDK's end-to-end proof.

The login runs as a subprocess; headless Chromium signs in on Gatehouse's pages and lands on the
command's loopback listener, exactly as a person at a desktop would (RFC 8252).
"""
import base64
import json
import os
import stat
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, screenshot

PASSWORD = "correct horse battery staple"


def cli(server, *args, stdin=None, env=None):
    """Runs the gatehouse binary against the server's database (operator commands) or as a client."""
    environment = dict(os.environ)
    environment.pop("DISPLAY", None)
    environment.pop("WAYLAND_DISPLAY", None)
    environment["GATEHOUSE_DATABASE_URL"] = f"sqlite://{server.dir}/gatehouse.sqlite"
    environment.update(env or {})
    return subprocess.run([str(BINARY), *args], input=stdin, capture_output=True, text=True, env=environment, timeout=60)


def create_client(server, *extra):
    result = cli(server, "client", "create", "--name", "Gatehouse CLI", "--type", "public", *extra)
    assert result.returncode == 0, result.stderr
    return next(line.split(": ", 1)[1] for line in result.stdout.splitlines() if line.startswith("client_id: "))


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def token_endpoint(server, **form):
    request = urllib.request.Request(server.url + "/oauth/token", data=urllib.parse.urlencode(form).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


class LoginProcess:
    """`gatehouse login` in the background; `url` is the authorization URL it printed."""

    def __init__(self, server, *args):
        environment = dict(os.environ)
        environment.pop("DISPLAY", None)
        environment.pop("WAYLAND_DISPLAY", None)
        self.process = subprocess.Popen([str(BINARY), "login", "--issuer", server.url, *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=environment)
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()
        line = self.process.stdout.readline().strip()
        assert line.startswith(server.url + "/oauth/authorize?"), f"no URL printed: {line!r} {''.join(self.stderr)}"
        self.url = line
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(line).query)
        self.redirect_uri = query["redirect_uri"][0]
        self.state = query["state"][0]

    def wait(self, timeout=30):
        code = self.process.wait(timeout=timeout)
        time.sleep(0.1)  # let the reader thread drain stderr
        return code, "".join(self.stderr)


def loopback_get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def browser_sign_in(driver, url, email):
    """Signs in on Gatehouse's page and allows the consent page when it is shown."""
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: "/sign-in" in d.current_url)
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]').click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith("http://127.0.0.1:") and (
        "/oauth/authorize" in d.current_url or "/callback" in d.current_url))
    if driver.find_elements(By.CSS_SELECTOR, 'form[action="/oauth/authorize/decision"]'):
        screenshot(driver, "cli-login-consent")
        driver.find_element(By.CSS_SELECTOR, 'button[name=decision][value=allow]').click()
    WebDriverWait(driver, 10).until(lambda d: "/callback" in d.current_url and "close this window" in d.page_source)
    screenshot(driver, "cli-login-done")


@pytest.fixture
def user(gatehouse):
    result = cli(gatehouse, "user", "create", "--email", "cli@example.com", "--name", "Cli User", "--verified",
                 "--password-stdin", stdin=PASSWORD + "\n")
    assert result.returncode == 0, result.stderr
    return "cli@example.com"


def test_login_token_refresh_logout_through_the_browser(gatehouse, browsers, user, tmp_path):
    client_id = create_client(gatehouse, "--redirect-uri", "http://127.0.0.1/callback")
    token_file = tmp_path / "config" / "tokens.json"
    login = LoginProcess(gatehouse, "--client-id", client_id, "--token-file", str(token_file), "--timeout", "60")
    assert login.redirect_uri.startswith("http://127.0.0.1:") and login.redirect_uri.endswith("/callback")

    # The loopback refuses anything but the callback of this sign-in, and keeps waiting.
    status, body = loopback_get(login.redirect_uri + "?code=stolen&state=not-the-state")
    assert status == 400 and "does not belong" in body
    status, _ = loopback_get(login.redirect_uri.replace("/callback", "/favicon.ico"))
    assert status == 404
    assert login.process.poll() is None

    browser_sign_in(browsers(), login.url, user)
    code, stderr = login.wait()
    assert code == 0, stderr
    assert "Signed in as cli@example.com" in stderr
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(token_file.parent).st_mode) == 0o700
    saved = json.loads(token_file.read_text())
    assert saved["refreshToken"] and saved["idToken"]
    id_claims = claims(saved["idToken"])
    assert id_claims["iss"] == gatehouse.url and id_claims["aud"] == client_id and id_claims["email"] == user

    first = cli(gatehouse, "token", "--token-file", str(token_file))
    assert first.returncode == 0, first.stderr
    access = first.stdout.strip()
    access_claims = claims(access)
    assert access_claims["iss"] == gatehouse.url
    assert access_claims["client_id"] == client_id
    assert access_claims["sub"] == id_claims["sub"]
    assert set(access_claims["scope"].split()) == {"openid", "profile", "email", "offline_access"}
    assert access_claims["exp"] > time.time()
    # Still fresh: the same token, no refresh.
    assert cli(gatehouse, "token", "--token-file", str(token_file)).stdout.strip() == access

    # Force a refresh: the access token "expired" ten seconds ago.
    saved["expiresAt"] = time.time() - 10
    token_file.write_text(json.dumps(saved))
    refreshed = cli(gatehouse, "token", "--token-file", str(token_file))
    assert refreshed.returncode == 0, refreshed.stderr
    new_access = refreshed.stdout.strip()
    assert new_access != access and claims(new_access)["sub"] == id_claims["sub"]
    rotated = json.loads(token_file.read_text())
    assert rotated["refreshToken"] != saved["refreshToken"], "the refresh token rotated and was stored"
    assert rotated["expiresAt"] > time.time()
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600

    out = cli(gatehouse, "logout", "--token-file", str(token_file))
    assert out.returncode == 0, out.stderr
    assert not token_file.exists() and not (tmp_path / "config" / "tokens.provider.json").exists()
    status, body = token_endpoint(gatehouse, grant_type="refresh_token", refresh_token=rotated["refreshToken"], client_id=client_id)
    assert status == 400 and body["error"] == "invalid_grant"

    signed_out = cli(gatehouse, "token", "--token-file", str(token_file))
    assert signed_out.returncode == 1 and "not signed in" in signed_out.stderr and signed_out.stdout == ""


def test_denied_consent_and_timeout_fail_cleanly(gatehouse, browsers, user, tmp_path):
    client_id = create_client(gatehouse, "--redirect-uri", "http://127.0.0.1/callback")
    token_file = tmp_path / "tokens.json"
    login = LoginProcess(gatehouse, "--client-id", client_id, "--token-file", str(token_file), "--timeout", "60")
    driver = browsers()
    driver.get(login.url)
    driver.find_element(By.NAME, "email").send_keys(user)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]').click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'button[name=decision][value=deny]'))
    driver.find_element(By.CSS_SELECTOR, 'button[name=decision][value=deny]').click()
    WebDriverWait(driver, 10).until(lambda d: "Sign-in failed" in d.page_source)
    code, stderr = login.wait()
    assert code == 1 and "access_denied" in stderr
    assert not token_file.exists()

    waiting = LoginProcess(gatehouse, "--client-id", client_id, "--token-file", str(token_file), "--timeout", "1")
    code, stderr = waiting.wait()
    assert code == 1 and "no sign-in response arrived in time" in stderr


def test_password_grant_through_the_sdk(gatehouse, user, tmp_path):
    client_id = create_client(gatehouse, "--redirect-uri", "http://127.0.0.1/callback", "--first-party",
                              "--grant", "password", "--grant", "refresh_token")
    token_file = tmp_path / "tokens.json"
    wrong = cli(gatehouse, "login", "--issuer", gatehouse.url, "--client-id", client_id, "--token-file", str(token_file),
                "--username", user, "--password-stdin", stdin="not the password\n")
    assert wrong.returncode == 1 and "invalid_grant" in wrong.stderr and not token_file.exists()

    result = cli(gatehouse, "login", "--issuer", gatehouse.url, "--client-id", client_id, "--token-file", str(token_file),
                 "--username", user, "--password-stdin", stdin=PASSWORD + "\n")
    assert result.returncode == 0, result.stderr
    assert "Signed in as cli@example.com" in result.stderr
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    saved = json.loads(token_file.read_text())
    access = cli(gatehouse, "token", "--token-file", str(token_file)).stdout.strip()
    assert claims(access)["client_id"] == client_id and claims(access)["iss"] == gatehouse.url

    saved["expiresAt"] = time.time() - 10
    token_file.write_text(json.dumps(saved))
    assert cli(gatehouse, "token", "--token-file", str(token_file)).stdout.strip() != access
    assert json.loads(token_file.read_text())["refreshToken"] != saved["refreshToken"]
    assert cli(gatehouse, "logout", "--token-file", str(token_file)).returncode == 0
    assert not token_file.exists()


def test_password_grant_refused_for_a_client_without_it(gatehouse, user, tmp_path):
    client_id = create_client(gatehouse, "--redirect-uri", "http://127.0.0.1/callback")
    result = cli(gatehouse, "login", "--issuer", gatehouse.url, "--client-id", client_id, "--token-file", str(tmp_path / "t.json"),
                 "--username", user, "--password-stdin", stdin=PASSWORD + "\n")
    assert result.returncode == 1 and "unauthorized_client" in result.stderr


def test_usage_errors(gatehouse, tmp_path):
    assert cli(gatehouse, "login", "--client-id", "x").returncode == 2
    assert cli(gatehouse, "login", "--issuer", gatehouse.url).returncode == 2
    assert cli(gatehouse, "login", "--issuer", "ftp://x", "--client-id", "x").returncode == 2
    bad_issuer = cli(gatehouse, "login", "--issuer", gatehouse.url + "/nowhere", "--client-id", "x", "--token-file", str(tmp_path / "t"))
    assert bad_issuer.returncode == 1 and "gatehouse:" in bad_issuer.stderr
    for command in ("login", "token", "logout"):
        helped = cli(gatehouse, command, "--help")
        assert helped.returncode == 0 and "Usage: gatehouse " + command in helped.stdout


def test_token_reports_an_ended_session(gatehouse, user, tmp_path):
    """A refresh token revoked elsewhere: `token` says the session ended and forgets the sign-in."""
    client_id = create_client(gatehouse, "--redirect-uri", "http://127.0.0.1/callback", "--first-party",
                              "--grant", "password", "--grant", "refresh_token")
    token_file = tmp_path / "tokens.json"
    result = cli(gatehouse, "login", "--issuer", gatehouse.url, "--client-id", client_id, "--token-file", str(token_file),
                 "--username", user, "--password-stdin", stdin=PASSWORD + "\n")
    assert result.returncode == 0, result.stderr
    saved = json.loads(token_file.read_text())
    request = urllib.request.Request(gatehouse.url + "/oauth/revoke", method="POST", data=urllib.parse.urlencode(
        {"token": saved["refreshToken"], "token_type_hint": "refresh_token", "client_id": client_id}).encode())
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
    saved["expiresAt"] = time.time() - 10
    token_file.write_text(json.dumps(saved))
    ended = cli(gatehouse, "token", "--token-file", str(token_file))
    assert ended.returncode == 1 and "session has ended" in ended.stderr and ended.stdout == ""
    assert not token_file.exists() and not (tmp_path / "tokens.provider.json").exists()
