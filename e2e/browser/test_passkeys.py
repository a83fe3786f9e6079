"""Passkeys in Chromium with the CDP `WebAuthn` virtual authenticator (internal transport, resident
keys, user verification): add one on the account page, sign in with the button and through conditional
mediation, rename and remove; then the attacks, each sent by the page's own `fetch` as the script
would send it, with assertions signed in Python by the virtual authenticator's exported key."""
import base64
import hashlib
import json
import struct

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import GatehouseProcess, free_port, screenshot
from test_accounts import click_and_wait, fill, sign_in, submit

PASSWORD = "correct horse battery"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def server():
    # WebAuthn needs a domain as RP ID (not an IP address): the public URL's host is localhost.
    port = free_port()
    process = GatehouseProcess(extra_env={"GATEHOUSE_PUBLIC_URL": f"http://localhost:{port}"}, port=port)
    process.url = f"http://localhost:{port}"
    yield process
    process.stop()


def authenticator(driver, backup=False):
    driver.execute_cdp_cmd("WebAuthn.enable", {})
    options = {"protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "internal", "hasResidentKey": True,
               "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True}
    if backup:
        options.update({"defaultBackupEligibility": True, "defaultBackupState": True})
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": options})["authenticatorId"]


def credentials(driver, authenticator_id):
    return driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]


def without_conditional_ui(driver):
    """Makes the browser report no conditional mediation, as Hotwire Native's web view does: the page then
    offers only its button. (With conditional mediation, Chromium's virtual authenticator answers the
    autofill request by itself as soon as the sign-in page loads.) Returns the script's id."""
    return driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    """})["identifier"]


def make_account(driver, server, email):
    driver.get(server.url + "/sign-up")
    fill(driver, email=email, name=email.split("@")[0], password=PASSWORD)
    submit(driver, "/sign-up")
    driver.get(server.wait_for_link(email, "/email/verify/"))
    sign_in(driver, server.url, email, PASSWORD)
    assert driver.current_url == server.url + "/account"


def add_passkey(driver, name):
    field = driver.find_element(By.ID, "passkey-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "#passkey-add button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: "notice=passkey-added" in d.current_url)


def page_post(driver, path, fields):
    """POSTs a form from the page with its cookies, exactly as the passkey script does."""
    return driver.execute_async_script("""
        const [path, fields, done] = arguments;
        fetch(path, {method: "POST", body: new URLSearchParams(fields), credentials: "same-origin",
                     headers: {Accept: "application/json"}})
          .then(async (r) => done({status: r.status, body: await r.text()}), (e) => done({status: 0, body: String(e)}));
    """, path, fields)


def sign_in_csrf(driver):
    return driver.find_element(By.CSS_SELECTOR, "#passkey-sign-in input[name=csrf_token]").get_attribute("value")


def options(driver):
    answer = page_post(driver, "/passkeys/sign-in/options", {"csrf_token": sign_in_csrf(driver)})
    assert answer["status"] == 200, answer
    return json.loads(answer["body"])["publicKey"]


def forged(credential, challenge, origin, rp_id=None, flags=0x05, sign_count=None, user_handle=None):
    """An assertion made in Python with the virtual authenticator's own private key."""
    key = serialization.load_der_private_key(base64.b64decode(credential["privateKey"]), password=None)
    count = credential["signCount"] + 1 if sign_count is None else sign_count
    auth_data = hashlib.sha256((rp_id or credential["rpId"]).encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    client_data = json.dumps({"type": "webauthn.get", "challenge": challenge, "origin": origin, "crossOrigin": False},
                             separators=(",", ":")).encode()
    signature = key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
    handle = user_handle if user_handle is not None else base64.b64decode(credential["userHandle"])
    return {"credential_id": b64url(base64.b64decode(credential["credentialId"])), "client_data_json": b64url(client_data),
            "authenticator_data": b64url(auth_data), "signature": b64url(signature), "user_handle": b64url(handle)}


def test_add_sign_in_with_button_and_conditional_ui_rename_remove(server, browsers):
    driver = browsers()
    script = without_conditional_ui(driver)
    authenticator_id = authenticator(driver)
    make_account(driver, server, "ada@example.com")
    add_passkey(driver, "Ada's laptop")
    stored = credentials(driver, authenticator_id)
    assert len(stored) == 1 and stored[0]["isResidentCredential"] and stored[0]["rpId"] == "localhost"
    # The user handle is opaque and random: never the email.
    assert b"ada" not in base64.b64decode(stored[0]["userHandle"])
    row = driver.find_element(By.CSS_SELECTOR, "#passkeys tr")
    assert "Ada's laptop" in row.text and "never used" in row.text and "on this device only" in row.text
    screenshot(driver, "passkeys-account")

    # The button, where the browser offers no conditional mediation.
    submit(driver, "/sign-out")
    driver.get(server.url + "/sign-in")
    assert driver.find_element(By.ID, "email").get_attribute("autocomplete") == "username webauthn"
    button = driver.find_element(By.ID, "passkey-sign-in-button")
    WebDriverWait(driver, 5).until(lambda d: button.is_displayed())
    count = credentials(driver, authenticator_id)[0]["signCount"]
    button.click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url == server.url + "/account")
    assert "last used" in driver.find_element(By.CSS_SELECTOR, "#passkeys tr").text
    assert credentials(driver, authenticator_id)[0]["signCount"] == count + 1
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})
    driver.get(server.url + "/account")

    # Conditional mediation: loading the sign-in page asks the browser for passkeys in the email field's
    # autofill, naming no credential; the virtual authenticator answers it and the page signs in, with
    # no click and no email typed (signing out lands on the sign-in page).
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        const original = navigator.credentials.get.bind(navigator.credentials);
        navigator.credentials.get = (request) => {
          const seen = JSON.parse(sessionStorage.getItem("mediations") || "[]");
          seen.push([request.mediation, request.publicKey.allowCredentials.length]);
          sessionStorage.setItem("mediations", JSON.stringify(seen));
          return original(request);
        };
    """})
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-out"] button[type=submit]').click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url == server.url + "/account"
                                    and d.execute_script("return sessionStorage.getItem('mediations')"))
    assert json.loads(driver.execute_script("return sessionStorage.getItem('mediations')")) == [["conditional", 0]]
    assert credentials(driver, authenticator_id)[0]["signCount"] == count + 2

    # Rename and remove (a password remains, so the passkey may go).
    form = driver.find_element(By.CSS_SELECTOR, "#passkeys form[action$='/rename']")
    field = form.find_element(By.NAME, "name")
    field.clear()
    field.send_keys("Work laptop")
    click_and_wait(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    assert "The passkey was renamed." in driver.page_source
    assert "Work laptop" in driver.find_element(By.ID, "passkeys").text
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#passkeys form[action$='/delete'] button"))
    assert "The passkey was removed from your account." in driver.page_source
    assert driver.find_elements(By.ID, "no-passkeys")


def test_a_synced_passkey_is_shown_as_synced(server, browsers):
    driver = browsers()
    authenticator(driver, backup=True)
    make_account(driver, server, "grace@example.com")
    add_passkey(driver, "Phone")
    assert "synced" in driver.find_element(By.CSS_SELECTOR, "#passkeys tr").text


def test_attacks_are_refused(server, browsers):
    ada, bob = browsers(), browsers()
    for driver in (ada, bob):
        without_conditional_ui(driver)
    ada_authenticator, bob_authenticator = authenticator(ada), authenticator(bob)
    make_account(ada, server, "ada@example.com")
    add_passkey(ada, "Ada's key")
    make_account(bob, server, "bob@example.com")
    add_passkey(bob, "Bob's key")
    for driver in (ada, bob):
        submit(driver, "/sign-out")
        driver.get(server.url + "/sign-in")
    ada_credential = credentials(ada, ada_authenticator)[0]
    bob_credential = credentials(bob, bob_authenticator)[0]

    # Control: an honest assertion made this way signs in (so every refusal below is the check's doing).
    answer = page_post(ada, "/passkeys/sign-in", {"csrf_token": sign_in_csrf(ada), "return_to": "",
                                                  **forged(ada_credential, options(ada)["challenge"], server.url)})
    assert answer["status"] == 200 and json.loads(answer["body"])["redirect"] == "/account", answer
    ada.delete_all_cookies()
    ada.get(server.url + "/sign-in")
    honest = forged(ada_credential, options(ada)["challenge"], server.url, sign_count=ada_credential["signCount"] + 2)
    assert page_post(ada, "/passkeys/sign-in", {"csrf_token": sign_in_csrf(ada), **honest})["status"] == 200
    ada.delete_all_cookies()
    ada.get(server.url + "/sign-in")

    def refused(fields, driver=ada):
        result = page_post(driver, "/passkeys/sign-in", {"csrf_token": sign_in_csrf(driver), **fields})
        assert result["status"] == 400, result
        return json.loads(result["body"])["error"]

    count = ada_credential["signCount"] + 3
    # Replayed assertion: the one that just signed in, again.
    refused(honest)
    # Wrong origin, wrong RP ID, no user presence, no user verification.
    refused(forged(ada_credential, options(ada)["challenge"], "http://evil.localhost", sign_count=count))
    refused(forged(ada_credential, options(ada)["challenge"], server.url, rp_id="evil.example", sign_count=count))
    refused(forged(ada_credential, options(ada)["challenge"], server.url, flags=0x04, sign_count=count))
    refused(forged(ada_credential, options(ada)["challenge"], server.url, flags=0x01, sign_count=count))
    # Counter regression: a lower count than the last one seen (a cloned key).
    message = refused(forged(ada_credential, options(ada)["challenge"], server.url, sign_count=1))
    assert "copied" in message
    # Bob's credential presenting Ada's user handle.
    refused(forged(bob_credential, options(ada)["challenge"], server.url, sign_count=bob_credential["signCount"] + 1,
                   user_handle=base64.b64decode(ada_credential["userHandle"])))
    # A challenge issued to another browser's flow.
    refused(forged(ada_credential, options(bob)["challenge"], server.url, sign_count=count))
    # The CSRF token is checked before anything else.
    result = page_post(ada, "/passkeys/sign-in", {"csrf_token": "forged", **forged(ada_credential, options(ada)["challenge"], server.url)})
    assert result["status"] == 403
    # Still not signed in, and the refusals are in the log with their reasons.
    ada.get(server.url + "/account")
    assert "/sign-in" in ada.current_url
    log = "".join(server.lines)
    for reason in ("unknown_challenge", "wrong_origin", "wrong_rp_id", "user_not_present", "user_not_verified", "unknown_credential"):
        assert f'"{reason}"' in log, reason
    assert "passkey.sign_count_regression" in log
    # After all that, the rightful owner still signs in with the real authenticator, once its counter is
    # past the ones the forged assertions used.
    ada.execute_cdp_cmd("WebAuthn.removeCredential", {"authenticatorId": ada_authenticator, "credentialId": ada_credential["credentialId"]})
    ada.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": ada_authenticator, "credential": {
        "credentialId": ada_credential["credentialId"], "isResidentCredential": True, "rpId": ada_credential["rpId"],
        "privateKey": ada_credential["privateKey"], "userHandle": ada_credential["userHandle"], "signCount": count + 10}})
    ada.get(server.url + "/sign-in")
    ada.find_element(By.ID, "passkey-sign-in-button").click()
    WebDriverWait(ada, 15).until(lambda d: d.current_url == server.url + "/account")


def test_sign_up_with_a_passkey_and_no_password(server, browsers):
    """The sign-up page's passkey form: an account with no password, unverified until the mailed link is confirmed —
    here in the session the passkey signed in, so the passkey stays — then the account page lists it."""
    driver = browsers()
    without_conditional_ui(driver)
    authenticator_id = authenticator(driver)
    driver.get(server.url + "/sign-up")
    section = driver.find_element(By.ID, "passkey-sign-up")
    WebDriverWait(driver, 5).until(lambda d: section.is_displayed())
    driver.find_element(By.ID, "passkey-email").send_keys("lin@example.com")
    driver.find_element(By.ID, "passkey-display-name").send_keys("Lin")
    screenshot(driver, "passkey-sign-up")
    driver.find_element(By.CSS_SELECTOR, "#passkey-sign-up-form button[type=submit]").click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url == server.url + "/sign-up/check-email")
    stored = credentials(driver, authenticator_id)
    assert len(stored) == 1 and stored[0]["isResidentCredential"] and stored[0]["rpId"] == "localhost"
    assert b"lin" not in base64.b64decode(stored[0]["userHandle"])

    # Unverified, the usual rules: the passkey signs in; then the link, confirmed in that session, proves the address.
    driver.get(server.url + "/sign-in")
    button = driver.find_element(By.ID, "passkey-sign-in-button")
    WebDriverWait(driver, 5).until(lambda d: button.is_displayed())
    button.click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url == server.url + "/account")
    driver.get(server.wait_for_link("lin@example.com", "/email/verify/"))
    assert not driver.find_elements(By.ID, "password"), "signed in: no password is asked for"
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form[action^='/email/verify/'] button[type=submit]"))
    assert driver.current_url == server.url + "/account?notice=email-verified"
    assert "Passkey" in driver.find_element(By.CSS_SELECTOR, "#passkeys tr").text
