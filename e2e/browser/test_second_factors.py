"""Two-step sign-in in Chromium, with `pyotp` as the independent TOTP generator: set up an authenticator app on
the account page (the QR code is drawn by Gatehouse; pyotp reads the `otpauth://` URI the page links), sign out,
sign in with the password and pyotp's code, and the ID token an Authlib client receives says `pwd` + `otp`
(`acr` mfa). Attacks through the rendered page: the used code again, and brute force to the limit. Then step-up:
`acr_values` asks a password-only session for its code. Last, a security key as the only second step, with
Chromium's virtual authenticator (CDP `WebAuthn`): turned on from the account page, asked for after the password,
and its last key refused removal through the rendered form while two-step sign-in is on."""
import re
import time
import urllib.parse

import pyotp
import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import GatehouseProcess, free_port, screenshot
from test_accounts import click_and_wait, fill, sign_in, submit
from test_passkeys import add_passkey, authenticator, credentials, without_conditional_ui

PASSWORD = "correct horse battery"
SECRET = "second-factor-secret-0123456789abcdefgh"
REDIRECT = "http://127.0.0.1:9/2fa/callback"   # nothing listens there: the browser's URL carries the code
MFA = "urn:gatehouse:acr:mfa"


CLIENTS = {"clients": [
    {"id": "mfa-app", "name": "MFA App", "type": "confidential", "secret": SECRET, "redirect_uris": [REDIRECT],
     "first_party": True},
]}


@pytest.fixture
def server():
    process = GatehouseProcess(config=CLIENTS)
    yield process
    process.stop()


@pytest.fixture
def key_server():
    # WebAuthn needs a domain as RP ID (not an IP address): the public URL's host is localhost.
    port = free_port()
    process = GatehouseProcess(extra_env={"GATEHOUSE_PUBLIC_URL": f"http://localhost:{port}"}, port=port, config=CLIENTS)
    process.url = f"http://localhost:{port}"
    yield process
    process.stop()


def make_account(driver, server, email):
    driver.get(server.url + "/sign-up")
    fill(driver, email=email, name="Tess", password=PASSWORD)
    submit(driver, "/sign-up")
    driver.get(server.wait_for_link(email, "/email/verify/"))
    # The link shows a page; its form, with the sign-up's password, confirms (a mail scanner's GET confirms nothing).
    fill(driver, password=PASSWORD)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action*="/email/verify/"] button[type=submit]'))
    sign_in(driver, server.url, email, PASSWORD)
    assert driver.current_url == server.url + "/account"


def enrol(driver):
    """Sets up the authenticator app; returns pyotp's TOTP for it and the recovery codes shown."""
    submit(driver, "/account/two-factor/setup")
    assert driver.find_element(By.CSS_SELECTOR, "#totp-qr svg path").get_attribute("d").startswith("M")
    uri = driver.find_element(By.ID, "totp-uri").get_attribute("href")
    totp = pyotp.parse_uri(uri)
    assert isinstance(totp, pyotp.TOTP) and totp.digits == 6 and totp.interval == 30
    shown = driver.find_element(By.ID, "totp-secret").text.replace(" ", "")
    assert shown == totp.secret
    field = driver.find_element(By.NAME, "code")
    assert field.get_attribute("autocomplete") == "one-time-code" and field.get_attribute("inputmode") == "numeric"
    screenshot(driver, "second-factor-setup")
    field.send_keys(totp.now())
    submit(driver, "/account/two-factor/confirm")
    codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
    assert len(codes) == 10
    return totp, codes


def next_code(totp, used):
    """A code of a step after every used one (a used step's code is refused for the rest of its window)."""
    while totp.now() in used:
        time.sleep(1)
    return totp.now()


def password_step(driver, server, email, path="/sign-in"):
    sign_in(driver, server.url, email, PASSWORD, path=path)
    field = driver.find_element(By.NAME, "code")
    assert field.get_attribute("autocomplete") == "one-time-code"
    return field


def authorize(driver, server, **extra):
    meta = requests.get(server.url + "/.well-known/openid-configuration", timeout=5).json()
    session = OAuth2Session("mfa-app", SECRET, scope="openid email", redirect_uri=REDIRECT, code_challenge_method="S256")
    verifier = "mfa-verifier-" + "x" * 40
    url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce="n-mfa", **extra)
    driver.get(url)
    return meta, session, verifier, state


def id_token_claims(driver, server, meta, session, verifier, state):
    try:
        WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(REDIRECT))
    except Exception:
        raise AssertionError(driver.current_url + "\n" + driver.find_element(By.TAG_NAME, "body").text[:600])
    callback = driver.current_url
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))["state"] == state
    token = session.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    jwks = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=5).json())
    claims = JsonWebToken(["RS256", "ES256"]).decode(token["id_token"], jwks)
    claims.validate()
    assert claims["iss"] == server.url and claims["aud"] == "mfa-app" and claims["nonce"] == "n-mfa"
    return claims


def test_enrol_sign_out_sign_in_with_password_and_pyotp_code_then_id_token_amr(server, browsers):
    driver = browsers()
    make_account(driver, server, "tess@example.com")
    totp, _ = enrol(driver)
    used = {totp.now()}
    submit(driver, "/sign-out")
    field = password_step(driver, server, "tess@example.com")
    assert driver.get_cookie("gatehouse_session") is None, "the password alone starts no session"
    screenshot(driver, "second-factor-prompt")
    code = next_code(totp, used)
    field.send_keys(code)
    submit(driver, "/sign-in/second-factor")
    assert driver.current_url == server.url + "/account"
    used.add(code)

    claims = id_token_claims(driver, server, *authorize(driver, server))
    assert claims["amr"] == ["pwd", "otp", "mfa"]
    assert claims["acr"] == MFA

    # The same code in a new sign-in, inside its window: refused.
    driver.get(server.url + "/account")
    submit(driver, "/sign-out")
    password_step(driver, server, "tess@example.com").send_keys(code)
    submit(driver, "/sign-in/second-factor")
    assert "That code was used already" in driver.page_source
    assert driver.get_cookie("gatehouse_session") is None


def test_brute_force_hits_the_limit_and_a_recovery_code_works_once(server, browsers):
    driver = browsers()
    make_account(driver, server, "bruno@example.com")
    totp, codes = enrol(driver)
    submit(driver, "/sign-out")
    password_step(driver, server, "bruno@example.com")
    right = totp.now()
    for guess in range(6):
        wrong = f"{(int(right) + 7 + guess) % 1000000:06d}"
        if pyotp.TOTP(totp.secret).verify(wrong, valid_window=1):
            continue
        field = driver.find_element(By.NAME, "code")
        field.send_keys(wrong)
        submit(driver, "/sign-in/second-factor")
    assert "Too many attempts" in driver.page_source
    # Held back from this address, even with a recovery code.
    field = driver.find_element(By.NAME, "code")
    field.send_keys(codes[0])
    submit(driver, "/sign-in/second-factor")
    assert "Too many attempts" in driver.page_source
    assert driver.get_cookie("gatehouse_session") is None


def test_a_recovery_code_signs_in_once(server, browsers):
    driver = browsers()
    make_account(driver, server, "rita@example.com")
    _, codes = enrol(driver)
    driver.get(server.url + "/account")
    submit(driver, "/sign-out")
    password_step(driver, server, "rita@example.com").send_keys(codes[2].upper())
    submit(driver, "/sign-in/second-factor")
    assert driver.current_url == server.url + "/account"
    assert "9 recovery codes left" in driver.page_source
    submit(driver, "/sign-out")
    password_step(driver, server, "rita@example.com").send_keys(codes[2])
    submit(driver, "/sign-in/second-factor")
    assert "That code is not right" in driver.page_source


def test_step_up_asks_a_password_only_session_for_its_code(server, browsers):
    driver = browsers()
    make_account(driver, server, "sten@example.com")
    # Without a second factor, acr_values mfa gives nothing lower: the user is told to set one up.
    authorize(driver, server, acr_values=MFA)
    assert "/sign-in/step-up" in driver.current_url
    assert driver.find_element(By.ID, "set-up-two-step")
    driver.get(server.url + "/account")
    totp, _ = enrol(driver)
    used = {totp.now()}
    # The session is still the password-only one: the application's request asks for the code.
    flow = authorize(driver, server, acr_values=MFA)
    field = driver.find_element(By.NAME, "code")
    assert "asks you to confirm" in driver.page_source
    field.send_keys(next_code(totp, used))
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in/second-factor"] button[type=submit]'))
    claims = id_token_claims(driver, server, *flow)
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["acr"] == MFA


def test_a_security_key_alone_is_the_second_step_and_its_last_key_stays(key_server, browsers):
    server = key_server
    driver = browsers()
    # Without conditional UI the virtual authenticator does not answer the sign-in page's autofill request by itself.
    without_conditional_ui(driver)
    key = authenticator(driver)
    make_account(driver, server, "kim@example.com")
    assert "add one under “Passkeys” first" in driver.find_element(By.ID, "two-factor-status").find_element(By.XPATH, "..").text
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "passkey-add").is_displayed())
    add_passkey(driver, "YubiKey")
    assert len(credentials(driver, key)) == 1
    submit(driver, "/account/two-factor/security-key")
    codes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
    assert len(codes) == 10, "recovery codes come with the security key, as with an app"
    driver.get(server.url + "/account")
    assert "your security key or passkey is asked for after your password" in driver.find_element(By.ID, "two-factor-status").text
    submit(driver, "/sign-out")

    # The password alone signs nobody in: the prompt asks for the key, its field takes recovery codes.
    sign_in(driver, server.url, "kim@example.com", PASSWORD)
    assert driver.get_cookie("gatehouse_session") is None
    assert driver.find_element(By.CSS_SELECTOR, 'label[for="code"]').text == "Recovery code"
    button = driver.find_element(By.ID, "second-step-webauthn-button")
    WebDriverWait(driver, 10).until(lambda d: button.is_displayed())
    screenshot(driver, "second-factor-security-key-prompt")
    click_and_wait(driver, button)
    WebDriverWait(driver, 15).until(lambda d: d.current_url == server.url + "/account")
    claims = id_token_claims(driver, server, *authorize(driver, server))
    assert claims["amr"] == ["pwd", "hwk", "user", "mfa"] and claims["acr"] == MFA

    # The only key of a keys-only second step: the rendered remove form is refused, the key stays.
    driver.get(server.url + "/account")
    remove = driver.find_element(By.CSS_SELECTOR, 'form[action$="/delete"] button[type=submit]')
    click_and_wait(driver, remove)
    assert "This is your only second step, so it cannot be removed." in driver.find_element(By.ID, "form-error").text
    assert len(driver.find_elements(By.CSS_SELECTOR, "#passkeys tr")) == 1
    screenshot(driver, "second-factor-last-key-refused")
    # Turning two-step sign-in off is the explicit way; then the key is only a way in beside the password.
    submit(driver, "/account/two-factor/remove")
    assert "notice=two-factor-off" in driver.current_url
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action$="/delete"] button[type=submit]'))
    assert "notice=passkey-removed" in driver.current_url
    submit(driver, "/sign-out")
    sign_in(driver, server.url, "kim@example.com", PASSWORD)
    assert driver.current_url == server.url + "/account", "the password alone again"
