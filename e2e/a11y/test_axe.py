"""Every page a person meets passes axe-core 4.x (WCAG 2.2 A and AA) in headless Chromium, branded, with
errors tied to their fields; the sign-in works by keyboard alone."""
import base64
import hashlib
import os
import pathlib
import subprocess

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from axe_support import assert_accessible
from conftest import BINARY, GatehouseProcess, screenshot

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SECRET = "a11y-test-secret-0123456789abcdefghijkl"
REDIRECT = "http://127.0.0.1:9/a11y/callback"
PASSWORD = "a long enough password"


@pytest.fixture
def server(tmp_path):
    (tmp_path / "acme.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#0b5cad"/></svg>')
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={
        "branding": {"product_name": "Acme Cloud", "logo": str(tmp_path / "acme.svg"),
                     "colors": {"primary": "#0b5cad", "background": "#ffffff", "text": "#1a1a1a"},
                     "support_links": [{"label": "Help centre", "url": "https://acme.example/help"}]},
        "clients": [
            {"id": "a11y-app", "name": "Acme Notes", "type": "confidential", "secret": SECRET, "redirect_uris": [REDIRECT],
             "grants": ["authorization_code"], "first_party": False},
            {"id": "demo-native", "name": "Acme App", "type": "public", "redirect_uris": ["com.example.demo:/oauth"],
             "first_party": True, "native": {"callback_schemes": ["demoapp"], "bundle_ids": ["com.example.demo"]}},
        ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "lin@example.com", "--password-stdin", "--verified"],
                   input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def check(driver, name):
    screenshot(driver, f"a11y-{name}")
    assert "Gatehouse" not in driver.find_element(By.TAG_NAME, "body").text, name
    assert_accessible(driver, name)


def submit(driver, action):
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, f'form[action="{action}"] button[type=submit]').click()
    WebDriverWait(driver, 15).until(lambda d: _stale(old))


def _stale(element):
    try:
        element.is_enabled()
        return False
    except Exception:
        return True


def test_every_page_passes_axe(server, browsers):
    driver = browsers()
    base = server.url
    for path, name in [("/sign-in", "sign-in"), ("/sign-up", "sign-up"), ("/password/forgot", "forgot"),
                       ("/sign-up/check-email", "check-email"), ("/no-such-page", "error-404")]:
        driver.get(base + path)
        check(driver, name)

    # Errors: announced (role=alert) and tied to the fields they are about.
    driver.get(base + "/sign-in")
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    driver.find_element(By.NAME, "password").send_keys("not the password")
    submit(driver, "/sign-in")
    error = driver.find_element(By.ID, "form-error")
    assert error.get_attribute("role") == "alert" and error.text
    for field in ("email", "password"):
        element = driver.find_element(By.NAME, field)
        assert element.get_attribute("aria-invalid") == "true" and element.get_attribute("aria-describedby") == "form-error"
    check(driver, "sign-in-error")

    driver.get(base + "/sign-up")
    driver.find_element(By.NAME, "email").send_keys("new@example.com")
    driver.find_element(By.NAME, "password").send_keys("short")
    # The browser's own minlength check would stop a short password; the server's answer is what is tested.
    driver.execute_script("document.getElementById('password').removeAttribute('minlength')")
    submit(driver, "/sign-up")
    password = driver.find_element(By.NAME, "password")
    assert password.get_attribute("aria-invalid") == "true"
    assert "form-error" in password.get_attribute("aria-describedby").split()
    assert driver.find_element(By.NAME, "email").get_attribute("aria-invalid") is None, "only the field at fault"
    check(driver, "sign-up-error")

    driver.get(base + "/password/forgot")
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    submit(driver, "/password/forgot")
    check(driver, "forgot-sent")
    driver.get(server.wait_for_link("lin@example.com", "/password/reset/"))
    check(driver, "reset")

    driver.get(base + "/sign-in")
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, "/sign-in")
    assert driver.current_url == base + "/account"
    check(driver, "account")

    # Consent for a third-party client.
    challenge = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 43).digest()).rstrip(b"=").decode()
    driver.get(f"{base}/oauth/authorize?response_type=code&client_id=a11y-app&redirect_uri={REDIRECT}"
               f"&scope=openid%20email&state=s1&code_challenge={challenge}&code_challenge_method=S256")
    assert "Acme Notes" in driver.page_source
    check(driver, "consent")

    # The native start page, held before its script submits it.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*native-start.js"]})
    driver.get(f"{base}/native/start?provider=google&app=demo-native&challenge={challenge}")
    assert driver.find_element(By.ID, "native-start")
    check(driver, "native-start")
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})

    # Mails carry the links the flows need; the verification page is reached from one.
    other = browsers()
    other.get(base + "/sign-up")
    other.find_element(By.NAME, "email").send_keys("ada@example.com")
    other.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(other, "/sign-up")
    other.get(server.wait_for_link("ada@example.com", "/email/verify/"))
    check(other, "verify")


def test_sign_in_by_keyboard_alone(server, browsers):
    driver = browsers()
    driver.get(server.url + "/sign-in")
    body = driver.find_element(By.TAG_NAME, "body")
    body.click()
    order = []
    active = None
    for _ in range(12):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        active = driver.switch_to.active_element
        order.append(active.get_attribute("name") or active.get_attribute("href") or active.text)
        if active.get_attribute("name") == "email":
            break
    assert active.get_attribute("name") == "email", f"Tab reaches the email field: {order}"
    # Focus is visible: the stylesheet's focus ring is drawn on the focused field.
    assert active.value_of_css_property("outline-style") != "none"
    active.send_keys("lin@example.com")
    active.send_keys(Keys.TAB)
    password = driver.switch_to.active_element
    assert password.get_attribute("name") == "password"
    password.send_keys(PASSWORD)
    password.send_keys(Keys.TAB)
    button = driver.switch_to.active_element
    assert button.tag_name == "button" and button.text == "Sign in"
    old = driver.find_element(By.TAG_NAME, "html")
    button.send_keys(Keys.ENTER)
    WebDriverWait(driver, 15).until(lambda d: _stale(old))
    assert driver.current_url == server.url + "/account"


def test_every_credential_field_has_autocomplete(server, browsers):
    driver = browsers()
    expected = {"/sign-in": {"email": "username webauthn", "password": "current-password"},
                "/sign-up": {"email": "email", "password": "new-password"},
                "/password/forgot": {"email": "email"}}
    for path, fields in expected.items():
        driver.get(server.url + path)
        for name, token in fields.items():
            element = driver.find_element(By.CSS_SELECTOR, f'main form input[name="{name}"]')
            assert element.get_attribute("autocomplete") == token, (path, name)


def test_axe_reports_what_it_should(browsers):
    """The harness itself: an unlabelled field and grey-on-white text are reported, so a clean run means something."""
    from axe_support import run_axe
    driver = browsers()
    driver.get("data:text/html,<html lang=en><title>t</title><main><input type=text>"
               "<p style='color:%23bbbbbb;background:%23ffffff'>faint</p></main></html>")
    version, violations = run_axe(driver)
    assert version.startswith("4.")
    assert {"label", "color-contrast"} <= {rule for rule, *_ in violations}


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a, b):
    la, lb = sorted([luminance(a), luminance(b)], reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_field_borders_have_three_to_one_contrast(server, browsers):
    """WCAG 1.4.11 (which axe does not check): the painted border of every field against the page."""
    driver = browsers()
    for path in ("/sign-in", "/sign-up", "/password/forgot"):
        driver.get(server.url + path)
        page = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        for field in driver.find_elements(By.CSS_SELECTOR, "main input:not([type=hidden])"):
            border = field.value_of_css_property("border-top-color")
            parse = lambda text: tuple(int(x) for x in text[text.index("(") + 1:text.index(")")].split(",")[:3])
            ratio = contrast(parse(border), parse(page))
            assert ratio >= 3, f"{path} {field.get_attribute('name')}: border {border} on {page} is {ratio:.2f}:1"


def test_provider_buttons_have_equal_prominence(server, browsers):
    """Every provider button is drawn the same size, no smaller than the password button (Apple's and Google's
    rule), in Apple's black style and Google's light theme on this light page."""
    driver = browsers()
    driver.get(server.url + "/sign-in")
    buttons = driver.find_elements(By.CSS_SELECTOR, "#providers button.provider-button")
    texts = [b.text for b in buttons]
    for label in ("Sign in with Apple", "Sign in with Google", "Sign in with GitHub"):
        assert any(text.startswith(label) for text in texts), (label, texts)
    sizes = {(b.size["width"], b.size["height"]) for b in buttons}
    assert len(sizes) == 1, f"one size for every provider: {sizes}"
    width, height = sizes.pop()
    password = driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]')
    assert height >= 44 and height >= password.size["height"] and width >= password.size["width"]
    apple = driver.find_element(By.CSS_SELECTOR, "button.provider-apple")
    assert apple.value_of_css_property("background-color") == "rgba(0, 0, 0, 1)"
    assert apple.value_of_css_property("color") == "rgba(255, 255, 255, 1)"
    google = driver.find_element(By.CSS_SELECTOR, "button.provider-google")
    assert google.value_of_css_property("background-color") == "rgba(255, 255, 255, 1)"
    assert google.value_of_css_property("border-top-color") == "rgba(116, 119, 117, 1)"


def test_a_palette_failing_wcag_aa_stops_the_server_at_start_up(tmp_path):
    """The contrast check runs where the operator meets it: `gatehouse serve` refuses the palette with the line
    docs/branding.md shows, and never listens."""
    documented = next(line for line in (ROOT / "docs" / "branding.md").read_text().splitlines()
                      if line.startswith("configuration error: branding.colors:"))
    config = tmp_path / "gatehouse.json"
    config.write_text('{"branding": {"product_name": "Acme Cloud", "colors": {"text": "#999999", "background": "#ffffff"}}}')
    env = dict(os.environ, GATEHOUSE_DATABASE_URL=f"sqlite://{tmp_path}/gatehouse.sqlite", GATEHOUSE_DEMO="0",
               GATEHOUSE_LISTEN="127.0.0.1:9", GATEHOUSE_PUBLIC_URL="http://127.0.0.1:9")
    result = subprocess.run([str(BINARY), "serve", "--config", str(config)], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    # The command's name, then the documented line, on standard error.
    assert result.stderr.splitlines() == ["gatehouse: " + documented], result.stdout + result.stderr
