"""Self-service on /account in headless Chromium, with mail through a real SMTP server (issue #26 items 2 and 6,
issue #24 item 13).

Gatehouse runs in demo mode (the provider simulator) with a brand and an SMTP relay: the aiosmtpd sink of the mail
tests. Every mail is read back from the raw bytes the sink received and parsed by Python's `email` package
(`policy=default`). Every change is made by submitting the rendered forms: the name, the email (the link goes to
the new address, a notice to the old one), a first password for a provider-only account, the data download, and
deletion after a fresh sign-in by whatever the account has (the provider again, or the password).
"""
import base64
import email.utils
import json
import re
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import GatehouseProcess, free_port
from mail_sink import MailSink
from test_accounts import click_and_wait, fill, sign_in, submit

FRESH_SECONDS = 10


@pytest.fixture
def sink():
    mail = MailSink()
    yield mail
    mail.stop()


@pytest.fixture
def acme(sink):
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={
        "mail": {"url": f"smtp://127.0.0.1:{sink.port}", "from": "id@acme.example", "from_name": "Acme Cloud", "starttls": "off"},
        "branding": {"product_name": "Acme Cloud"},
        "sessions": {"fresh_sign_in_seconds": FRESH_SECONDS},
    })
    yield process
    process.stop()


def sign_up_verified(driver, server, sink, address, password="correct horse battery"):
    driver.get(server.url + "/sign-up")
    fill(driver, email=address, name="Ada", password=password)
    submit(driver, "/sign-up")
    _, link = sink.wait(address, "/email/verify/")
    driver.get(link)
    fill(driver, password=password)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/email/verify/"] button[type=submit]'))
    sign_in(driver, server.url, address, password)
    assert driver.current_url == server.url + "/account"


def fill_in(driver, action, **fields):
    """Fills fields of the form posting to `action` (the account page has more than one field named `name`)."""
    for name, value in fields.items():
        element = driver.find_element(By.CSS_SELECTOR, f'form[action="{action}"] [name="{name}"]')
        element.clear()
        element.send_keys(value)


def provider_sign_in(driver, base, address, path):
    """Through the simulated Google from the page at `path` (its Google button)."""
    driver.get(base + path)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action="/auth/google"] button'))
    fill(driver, email=address, name="Pat")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]'))


def test_mails_are_multipart_branded_with_date_message_id_and_the_public_url(acme, sink, browsers):
    driver = browsers()
    driver.get(acme.url + "/sign-up")
    fill(driver, email="lin@example.com", name="Lin", password="correct horse battery")
    submit(driver, "/sign-up")
    message, link = sink.wait("lin@example.com", "/email/verify/")
    assert not message.defects
    assert message.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in message.iter_parts()] == ["text/plain", "text/html"]
    assert message["From"].addresses[0].display_name == "Acme Cloud"
    assert abs(email.utils.parsedate_to_datetime(message["Date"]).timestamp() - time.time()) < 300
    assert re.fullmatch(r"<[0-9a-f]{32}@acme\.example>", message["Message-ID"])
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert link.startswith(acme.url + "/email/verify/")
    assert f'href="{link}"' in html, "the HTML part links the same URL"
    for part in (text, html):
        assert "Acme Cloud" in part and acme.url in part
        assert "Gatehouse" not in part
    # The HTML part renders as a page in the same browser, its link a real one.
    driver.get("data:text/html;base64," + base64.b64encode(html.encode()).decode())
    assert driver.find_element(By.CSS_SELECTOR, f'a[href="{link}"]').is_displayed()


def test_name_and_email_change_through_the_rendered_forms(acme, sink, browsers):
    driver = browsers()
    sign_up_verified(driver, acme, sink, "ada@example.com")
    fill_in(driver, "/account/name", name="Ada Lovelace")
    submit(driver, "/account/name")
    assert "Your name was saved." in driver.page_source and "Ada Lovelace" in driver.page_source

    fill(driver, new_email="ada@lovelace.example")
    submit(driver, "/account/email")
    assert "We sent a link to the new address" in driver.page_source
    _, link = sink.wait("ada@lovelace.example", "/account/email/confirm/")
    notice, none = sink.wait("ada@example.com", "ada@lovelace.example")
    assert none is None, "the notice to the old address carries no link to confirm"
    driver.get(acme.url + "/account")
    assert "ada@example.com" in driver.page_source, "nothing changes until the link is used"

    driver.get(link)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/account/email/confirm/"] button[type=submit]'))
    assert driver.current_url == acme.url + "/account?notice=email-changed"
    assert "ada@lovelace.example" in driver.page_source
    # The link works once.
    driver.get(link)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/account/email/confirm/"] button[type=submit]'))
    assert "Link not valid" in driver.page_source
    token = link.rsplit("/", 1)[1]
    requests = [line for line in acme.lines if '"msg":"request"' in line]
    assert any('"/account/email/confirm/{token}"' in line for line in requests)
    assert not any(token in line for line in requests), "the link's secret stays out of the access log"


def test_a_provider_only_account_sets_a_password_through_a_mailed_link(acme, sink, browsers):
    driver = browsers()
    provider_sign_in(driver, acme.url, "pat@example.com", "/sign-in")
    assert driver.current_url == acme.url + "/account"
    assert not driver.find_elements(By.NAME, "current_password"), "never asked for a password it does not have"
    submit(driver, "/account/password/setup")
    assert "We emailed you a link to set a password." in driver.page_source
    _, link = sink.wait("pat@example.com", "/password/reset/")
    driver.get(link)
    fill(driver, new_password="pat's own new password")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/password/reset/"] button[type=submit]'))
    assert "Password changed" in driver.page_source
    sign_in(driver, acme.url, "pat@example.com", "pat's own new password")
    assert driver.current_url == acme.url + "/account"
    assert driver.find_elements(By.NAME, "current_password"), "now it changes the password it has"


def test_the_data_download_after_the_password(acme, sink, browsers, tmp_path):
    driver = browsers()
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    sign_up_verified(driver, acme, sink, "kim@example.com")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'a[href="/account/export"]'))
    fill(driver, password="correct horse battery")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/account/export"] button[type=submit]').click()
    # Chromium may show the file before its bytes are in: wait until it holds a whole JSON document.
    deadline, data = time.time() + 20, None
    while data is None and time.time() < deadline:
        try:
            data = json.loads((tmp_path / "account-data.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            time.sleep(0.1)
    assert data is not None, "no complete account-data.json was downloaded"
    assert data["profile"]["email"] == "kim@example.com" and data["profile"]["has_password"] is True
    assert data["sessions"] and any(entry["type"] == "sign_in.succeeded" for entry in data["audit"])
    text = json.dumps(data)
    assert "argon2" not in text and "csrf" not in text.lower()


def test_a_provider_only_user_signs_in_again_with_the_provider_then_types_the_address(acme, sink, browsers):
    driver = browsers()
    provider_sign_in(driver, acme.url, "sam@example.com", "/sign-in")
    fill_in(driver, "/account/name", name="Sam Before")
    submit(driver, "/account/name")
    time.sleep(FRESH_SECONDS + 1)   # the sign-in is no longer fresh
    driver.get(acme.url + "/account/delete")
    assert not driver.find_elements(By.NAME, "password"), "a user without a password is never asked for one"
    assert not driver.find_elements(By.NAME, "confirm_email"), "no confirmation before a fresh sign-in"
    # The page's own Google button: the simulator, then back to the deletion page.
    provider_sign_in(driver, acme.url, "sam@example.com", "/account/delete")
    assert driver.current_url == acme.url + "/account/delete"
    assert "You signed in again just now" in driver.page_source
    fill(driver, confirm_email="sam@example.com")
    submit(driver, "/account/delete")
    assert "/sign-in" in driver.current_url
    provider_sign_in(driver, acme.url, "sam@example.com", "/sign-in")
    assert driver.current_url == acme.url + "/account"
    assert "Sam Before" not in driver.page_source, "a new account: the old one is gone"


def test_a_password_user_types_the_password_and_the_address(acme, sink, browsers):
    driver = browsers()
    sign_up_verified(driver, acme, sink, "eve@example.com")
    driver.get(acme.url + "/account/delete")
    fill(driver, password="", confirm_email="eve@example.com")
    driver.execute_script("document.getElementById('fresh_password').removeAttribute('required')")
    submit(driver, "/account/delete")
    assert "sign in again" in driver.page_source.lower(), "a blank password is no proof, however recent the sign-in"
    fill(driver, password="correct horse battery", confirm_email="eve@example.com")
    submit(driver, "/account/delete")
    assert "/sign-in" in driver.current_url
    sign_in(driver, acme.url, "eve@example.com", "correct horse battery")
    assert driver.current_url.startswith(acme.url + "/sign-in"), "the account is gone"


@pytest.fixture
def localhost():
    # WebAuthn needs a domain as RP ID: the public URL's host is localhost (the log mailer carries the links).
    port = free_port()
    process = GatehouseProcess(extra_env={"GATEHOUSE_PUBLIC_URL": f"http://localhost:{port}"}, port=port)
    process.url = f"http://localhost:{port}"
    yield process
    process.stop()


def test_a_passkey_sign_in_on_the_deletion_page_confirms_it_is_the_owner(localhost, browsers):
    from test_passkeys import add_passkey, authenticator, make_account, without_conditional_ui
    driver = browsers()
    without_conditional_ui(driver)
    authenticator(driver)
    make_account(driver, localhost, "max@example.com")
    add_passkey(driver, "Max's laptop")
    driver.get(localhost.url + "/account/delete")
    # Signed in with the password: not fresh; the page asks for it, or offers the account's passkey instead.
    assert driver.find_elements(By.NAME, "password")
    button = driver.find_element(By.ID, "passkey-sign-in-button")
    WebDriverWait(driver, 5).until(lambda d: button.is_displayed())
    button.click()
    WebDriverWait(driver, 15).until(lambda d: "You signed in again just now" in d.page_source)
    assert driver.current_url == localhost.url + "/account/delete"
    assert not driver.find_elements(By.NAME, "password"), "the passkey sign-in is the proof"
    fill(driver, confirm_email="max@example.com")
    submit(driver, "/account/delete")
    assert "/sign-in" in driver.current_url
    sign_in(driver, localhost.url, "max@example.com", "correct horse battery")
    assert driver.current_url.startswith(localhost.url + "/sign-in"), "the account is gone"
