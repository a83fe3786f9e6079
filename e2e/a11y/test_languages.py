"""Every page in every shipped language: axe-core 4.x finds no WCAG 2.2 A/AA violation, `<html lang dir>` names the
language (Arabic right to left, its layout mirrored), and the language is chosen as docs/languages.md says — the saved
choice, then `ui_locales`, then `Accept-Language`. Mails go out in the recipient's language.

The page walk runs twice: with the built-in shell, and with the operator's templates of docs/templates.md's example
(its layout and sign-in block, read from the document itself), so an override is checked as a visitor meets it."""
import base64
import hashlib
import re
import subprocess

import pyotp
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from axe_support import assert_accessible
from conftest import BINARY, ROOT, GatehouseProcess, screenshot
from test_axe import PASSWORD, REDIRECT, SECRET, _stale, submit

LANGUAGES = ["en", "de", "fr", "es", "ja", "ar"]
# The sign-in page's title in each catalogue (Sources/GatehouseServer/Assets/Files/<tag>.catalogue, sign_in.title).
SIGN_IN = {"en": "Sign in", "de": "Anmelden", "fr": "Connexion", "es": "Iniciar sesión", "ja": "サインイン",
           "ar": "تسجيل الدخول"}
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(b"v" * 43).digest()).rstrip(b"=").decode()
AUTHORIZE = (f"/oauth/authorize?response_type=code&client_id=a11y-app&redirect_uri={REDIRECT}"
             f"&scope=openid%20email&state=s1&code_challenge={CHALLENGE}&code_challenge_method=S256")


BRANDING = {"product_name": "Acme Cloud",
            "colors": {"primary": "#0b5cad", "background": "#ffffff", "text": "#1a1a1a"},
            "support_links": [{"label": "Help centre", "url": "https://acme.example/help"}]}


def documented_templates():
    """docs/templates.md's example files (`templates/<path>` followed by its html block), exactly as documented."""
    text = (ROOT / "docs" / "templates.md").read_text()
    return dict(re.findall(r"`templates/([a-z/-]+\.html)`:\n\n```html\n(.*?)```", text, re.S))


def start(branding):
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={
        "branding": branding,
        "clients": [{"id": "a11y-app", "name": "Acme Notes", "type": "confidential", "secret": SECRET,
                     "redirect_uris": [REDIRECT], "grants": ["authorization_code"], "first_party": False},
                    {"id": "demo-native", "name": "Acme App", "type": "public", "redirect_uris": ["com.example.demo:/oauth"],
                     "first_party": True, "native": {"callback_schemes": ["demoapp"], "bundle_ids": ["com.example.demo"]}}]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    for email in ("lin@example.com", "mia@example.com"):
        subprocess.run([str(BINARY), "user", "create", "--email", email, "--password-stdin", "--verified"],
                       input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True)
    return process


@pytest.fixture
def server():
    process = start(BRANDING)
    yield process
    process.stop()


@pytest.fixture
def templated(tmp_path):
    """The same brand with docs/templates.md's example layout and sign-in block as its templates folder."""
    files = documented_templates()
    assert set(files) == {"layout.html", "pages/sign-in.html"}, files.keys()
    for name, text in files.items():
        (tmp_path / "templates" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "templates" / name).write_text(text)
    process = start(dict(BRANDING, templates_dir=str(tmp_path / "templates")))
    yield process
    process.stop()


def browser_in(browsers, accept_language):
    driver = browsers()
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": accept_language}})
    return driver


def html_lang(driver):
    html = driver.find_element(By.TAG_NAME, "html")
    return html.get_attribute("lang"), html.get_attribute("dir")


def check(driver, tag, name):
    screenshot(driver, f"lang-{tag}-{name}")
    assert html_lang(driver) == (tag, "rtl" if tag == "ar" else "ltr"), (tag, name)
    assert "Gatehouse" not in driver.find_element(By.TAG_NAME, "body").text, name
    assert_accessible(driver, f"{tag} {name}")


def click(driver, element):
    """Clicks and waits for the next page to replace this one."""
    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 15).until(lambda d: _stale(old))


def sign_in(driver, base, email):
    driver.get(base + "/sign-in")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, "/sign-in")


@pytest.mark.parametrize("shell", ["built-in", "templated"])
@pytest.mark.parametrize("tag", LANGUAGES)
def test_every_page_in_the_language_passes_axe(request, browsers, tag, shell):
    server = request.getfixturevalue("server" if shell == "built-in" else "templated")
    driver = browser_in(browsers, f"{tag};q=1, en;q=0.5")
    base = server.url

    def visit(name):
        check(driver, tag, f"{shell}-{name}")
        # The operator's layout is the page's shell everywhere; its sign-in block only on the sign-in page.
        assert bool(driver.find_elements(By.CSS_SELECTOR, "header.acme-header")) == (shell == "templated"), name
        welcome = driver.find_elements(By.CSS_SELECTOR, "p.acme-welcome")
        assert bool(welcome) == (shell == "templated" and name.startswith("sign-in")), name
        if welcome:
            assert welcome[0].text == "Acme Cloud"

    for path, name in [("/sign-in", "sign-in"), ("/sign-up", "sign-up"), ("/password/forgot", "forgot"),
                       ("/sign-up/check-email", "check-email"), ("/no-such-page", "error-404")]:
        driver.get(base + path)
        visit(name)
    driver.get(base + "/sign-in")
    assert driver.find_element(By.TAG_NAME, "h1").text == SIGN_IN[tag]
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    driver.find_element(By.NAME, "password").send_keys("not the password")
    submit(driver, "/sign-in")
    assert driver.find_element(By.ID, "form-error").text
    visit("sign-in-error")
    driver.get(base + "/password/forgot")
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    submit(driver, "/password/forgot")
    visit("forgot-sent")
    driver.get(server.wait_for_link("lin@example.com", "/password/reset/"))
    visit("reset")
    # A sign-up's mail leads to the verification page.
    driver.get(base + "/sign-up")
    driver.find_element(By.NAME, "email").send_keys(f"new.{tag}@example.com")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, "/sign-up")
    driver.get(server.wait_for_link(f"new.{tag}@example.com", "/email/verify/"))
    visit("verify")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    click(driver, driver.find_element(By.CSS_SELECTOR, 'form[action*="/email/verify/"] button[type=submit]'))
    # Signing in from the app: the native start page (held before its script submits it), then the system
    # browser's "Continue to Acme App?" after the (simulated) provider.
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*native-start.js"]})
    driver.get(f"{base}/native/start?provider=google&app=demo-native&challenge={CHALLENGE}")
    visit("native-start")
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    click(driver, driver.find_element(By.CSS_SELECTOR, "form#native-start button"))
    for field, value in (("email", f"pat.{tag}@example.com"), ("name", "Pat")):
        driver.find_element(By.NAME, field).clear()
        driver.find_element(By.NAME, field).send_keys(value)
    click(driver, driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]'))
    assert driver.find_elements(By.CSS_SELECTOR, 'button[name="decision"][value="continue"]'), driver.current_url
    visit("continue")
    driver.delete_all_cookies()
    sign_in(driver, base, "lin@example.com")
    for path, name in [("/account", "account"), ("/account/preferences", "preferences"), ("/account/delete", "delete"),
                       (AUTHORIZE, "consent")]:
        driver.get(base + path)
        visit(name)
    # The second step's pages, for the account verified above: the authenticator's set-up, the recovery codes,
    # and the prompt after the password.
    driver.delete_all_cookies()
    sign_in(driver, base, f"new.{tag}@example.com")
    submit(driver, "/account/two-factor/setup")
    visit("two-factor-setup")
    totp = pyotp.parse_uri(driver.find_element(By.ID, "totp-uri").get_attribute("href"))
    driver.find_element(By.NAME, "code").send_keys(totp.now())
    submit(driver, "/account/two-factor/confirm")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code")) == 10
    visit("recovery-codes")
    driver.delete_all_cookies()
    sign_in(driver, base, f"new.{tag}@example.com")
    assert driver.find_element(By.NAME, "code").get_attribute("autocomplete") == "one-time-code"
    visit("second-step")


def test_arabic_is_laid_out_right_to_left(server, browsers):
    driver = browser_in(browsers, "ar")
    driver.get(server.url + "/sign-in")
    assert html_lang(driver) == ("ar", "rtl")
    # Mirrored, not merely right-aligned: the field's label starts at the right edge of the form.
    label = driver.find_element(By.CSS_SELECTOR, 'label[for="email"]')
    assert driver.execute_script("return getComputedStyle(arguments[0]).direction", label) == "rtl"
    text, field = driver.execute_script("""
        const range = document.createRange(); range.selectNodeContents(arguments[0]);
        const t = range.getBoundingClientRect(), f = document.getElementById('email').getBoundingClientRect();
        return [[t.left, t.right], [f.left, f.right]];""", label)
    assert abs(text[1] - field[1]) <= 2, f"the label's text ends at the field's right edge: {text} {field}"
    assert text[0] > field[0] + 20, f"and does not start at its left: {text} {field}"


def test_ui_locales_gives_german_through_the_flow(server, browsers):
    driver = browser_in(browsers, "fr")
    driver.get(server.url + AUTHORIZE + "&ui_locales=de-CH%20fr")
    # Sent to sign in: the page is German although the browser asks for French.
    assert html_lang(driver)[0] == "de" and driver.find_element(By.TAG_NAME, "h1").text == "Anmelden"
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, "/sign-in")
    # Back at the authorization request: the consent page is German too.
    assert html_lang(driver)[0] == "de"
    assert driver.find_element(By.TAG_NAME, "h1").text == "Acme Notes erlauben?"
    # A new request without ui_locales forgets it: the browser's French again.
    driver.get(server.url + AUTHORIZE)
    assert html_lang(driver)[0] == "fr"


def test_accept_language_fr_gives_french_by_q_value(server, browsers):
    driver = browser_in(browsers, "pt-BR, fr;q=0.9, de;q=0.8")
    driver.get(server.url + "/sign-in")
    assert html_lang(driver)[0] == "fr" and driver.find_element(By.TAG_NAME, "h1").text == "Connexion"
    plain = browser_in(browsers, "pt-BR")
    plain.get(server.url + "/sign-in")
    assert html_lang(plain)[0] == "en", "a language not shipped: the configured default"


def test_saved_choice_beats_ui_locales_and_accept_language(server, browsers):
    driver = browser_in(browsers, "fr")
    sign_in(driver, server.url, "mia@example.com")
    driver.get(server.url + "/account/preferences")
    Select(driver.find_element(By.ID, "language")).select_by_value("ja")
    Select(driver.find_element(By.ID, "time_zone")).select_by_visible_text("Asia/Tokyo")
    submit(driver, "/account/preferences")
    assert driver.current_url.endswith("/account?notice=language-saved")
    assert html_lang(driver)[0] == "ja"
    assert driver.find_element(By.CSS_SELECTOR, ".notice.info").text == "言語とタイムゾーンを保存しました。"
    # Times in the saved zone, labelled with it, the machine-readable value in UTC.
    time = driver.find_element(By.CSS_SELECTOR, "#sessions time")
    assert time.text.endswith("Asia/Tokyo") and time.get_attribute("datetime").endswith("Z")
    driver.get(server.url + AUTHORIZE + "&ui_locales=de")
    assert html_lang(driver)[0] == "ja", "the saved choice beats ui_locales"
    # Mails to the user follow the saved choice, whatever the page that caused them.
    other = browser_in(browsers, "de")
    other.get(server.url + "/password/forgot")
    other.find_element(By.NAME, "email").send_keys("mia@example.com")
    submit(other, "/password/forgot")
    WebDriverWait(other, 10).until(lambda d: server.mails("mia@example.com"))
    assert server.mails("mia@example.com")[-1]["subject"] == "パスワードの再設定"


def test_a_mail_without_a_saved_choice_is_in_the_page_language(server, browsers):
    driver = browser_in(browsers, "es")
    driver.get(server.url + "/sign-up")
    driver.find_element(By.NAME, "email").send_keys("nuevo@example.com")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    submit(driver, "/sign-up")
    link = server.wait_for_link("nuevo@example.com", "/email/verify/")
    mail = server.mails("nuevo@example.com")[-1]
    assert mail["subject"] == "Confirma tu dirección de correo" and link in mail["body"]
    assert "Acme Cloud" in mail["body"]
