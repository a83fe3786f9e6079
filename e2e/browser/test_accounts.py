"""Accounts and web sessions in a real browser (headless Chromium driven by Selenium)."""
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

from conftest import screenshot


def fill(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)


def click_and_wait(driver, element):
    """Clicks and waits for the next page to replace this one (a click does not wait for navigation)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()

    def replaced(d):
        # Any error touching the old page (stale element, detached frame mid-navigation) means it is gone.
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True

    WebDriverWait(driver, 15).until(replaced)


def submit(driver, action):
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, f'form[action="{action}"] button[type=submit]'))


def sign_in(driver, base, email, password, path="/sign-in"):
    driver.get(base + path)
    fill(driver, email=email, password=password)
    submit(driver, "/sign-in")


def test_sign_up_out_in_and_end_session_from_second_browser(gatehouse, browsers):
    first = browsers()
    first.get(gatehouse.url + "/sign-up")
    screenshot(first, "sign-up")
    fill(first, email="ada@example.com", name="Ada Lovelace", password="correct horse battery")
    submit(first, "/sign-up")
    # Sign-up answers the same whether or not the address has an account: no session yet.
    assert first.current_url == gatehouse.url + "/sign-up/check-email"
    assert "Check your email" in first.page_source
    # The link shows a page (a mail scanner's GET proves nothing); its form, with the sign-up's password, confirms.
    first.get(gatehouse.wait_for_link("ada@example.com", "/email/verify/"))
    assert "Email confirmed" not in first.page_source
    fill(first, password="correct horse battery")
    click_and_wait(first, first.find_element(By.CSS_SELECTOR, 'form[action^="/email/verify/"] button[type=submit]'))
    assert "Email confirmed" in first.page_source
    sign_in(first, gatehouse.url, "ada@example.com", "correct horse battery")
    assert first.current_url == gatehouse.url + "/account"
    assert "ada@example.com" in first.page_source
    screenshot(first, "account")

    submit(first, "/sign-out")
    assert "/sign-in" in first.current_url
    assert "You are signed out." in first.page_source
    first.get(gatehouse.url + "/account")
    assert "/sign-in" in first.current_url, "signed out really ends the session"

    sign_in(first, gatehouse.url, "ada@example.com", "correct horse battery")
    assert first.current_url == gatehouse.url + "/account"
    rows = first.find_elements(By.CSS_SELECTOR, "#sessions tr")
    assert len(rows) == 1 and "(this browser)" in rows[0].text

    second = browsers()
    sign_in(second, gatehouse.url, "ada@example.com", "correct horse battery")
    rows = second.find_elements(By.CSS_SELECTOR, "#sessions tr")
    assert len(rows) == 2
    other = [row for row in rows if "(this browser)" not in row.text][0]
    click_and_wait(second, other.find_element(By.CSS_SELECTOR, "button"))
    assert "The session has ended." in second.page_source
    screenshot(second, "account-session-ended")
    assert len(second.find_elements(By.CSS_SELECTOR, "#sessions tr")) == 1

    first.get(gatehouse.url + "/account")
    assert "/sign-in" in first.current_url, "the first browser is signed out"


def test_password_reset_through_the_log_mailer(gatehouse, browsers):
    driver = browsers()
    driver.get(gatehouse.url + "/sign-up")
    fill(driver, email="grace@example.com", password="first password here")
    submit(driver, "/sign-up")

    driver.get(gatehouse.url + "/password/forgot")
    fill(driver, email="grace@example.com")
    submit(driver, "/password/forgot")
    assert "Check your email" in driver.page_source
    link = gatehouse.wait_for_link("grace@example.com", "/password/reset/")
    driver.get(link)
    screenshot(driver, "password-reset")
    fill(driver, new_password="second password here")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/password/reset/"] button[type=submit]'))
    assert "Password changed" in driver.page_source

    sign_in(driver, gatehouse.url, "grace@example.com", "first password here")
    assert "not right" in driver.page_source
    sign_in(driver, gatehouse.url, "grace@example.com", "second password here")
    assert driver.current_url == gatehouse.url + "/account"

    driver.get(link)
    fill(driver, new_password="third password here")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action^="/password/reset/"] button[type=submit]'))
    assert "not valid any more" in driver.page_source, "a reset link works once: " + driver.current_url + driver.find_element(By.TAG_NAME, "main").text


def test_return_to_elsewhere_is_ignored(gatehouse, browsers):
    driver = browsers()
    driver.get(gatehouse.url + "/sign-up")
    fill(driver, email="eve@example.com", password="correct horse battery")
    submit(driver, "/sign-up")
    sign_in(driver, gatehouse.url, "eve@example.com", "correct horse battery",
            path="/sign-in?return_to=https://evil.example/")
    assert driver.current_url == gatehouse.url + "/account"

    submit(driver, "/sign-out")
    sign_in(driver, gatehouse.url, "eve@example.com", "correct horse battery",
            path="/sign-in?return_to=/account%3Fnotice%3Demail-verified")
    assert driver.current_url == gatehouse.url + "/account?notice=email-verified"


def test_pages_work_without_javascript_and_set_security_headers(gatehouse):
    import urllib.request
    with urllib.request.urlopen(gatehouse.url + "/sign-in") as response:
        body = response.read().decode()
        # No inline script (the CSP forbids it anyway); two external scripts are for Hotwire Native (the Turbo
        # adapter surface and the bridge), which do nothing outside the app, and the passkey script only shows
        # the passkey button (hidden in the HTML) where WebAuthn exists: the forms are plain HTML and work
        # without JavaScript.
        import re
        scripts = re.findall(r"<script[^>]*>", body)
        assert scripts == ['<script src="/assets/gatehouse-turbo.js">', '<script src="/assets/gatehouse-bridge.js">',
                           '<script src="/assets/gatehouse-passkeys.js" defer>']
        assert re.search(r'<section id="passkey-sign-in" data-passkey hidden', body)
        assert '<form method="post" action="/sign-in">' in body
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Content-Type-Options"] == "nosniff"
