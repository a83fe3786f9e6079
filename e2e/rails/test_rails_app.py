"""The example Rails app (examples/rails) signs in through Gatehouse in headless Chromium, in both deployment shapes:
one origin (nginx: the app at /, Gatehouse under /auth) and two hosts (Gatehouse 127.0.0.1, the app localhost)."""
import hashlib
import json
import pathlib
import sqlite3
import time
import sys
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import make_browser, screenshot  # noqa: E402
from rails_app import CLIENT_ID, RailsStack  # noqa: E402

SHAPES = ["two-hosts", "one-origin"]
PASSWORD = "rails example password"


def click_and_wait(driver, element):
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()

    def replaced(d):
        try:
            page.is_enabled()
            return False
        except Exception:
            return True

    WebDriverWait(driver, 20).until(replaced)


def wait_for_url(driver, predicate, timeout=20):
    try:
        WebDriverWait(driver, timeout).until(lambda d: predicate(d.current_url))
    except Exception:
        raise AssertionError(f"stopped at {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[:300]}")


def fill(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)


def me(driver, stack):
    """The app's /me as this browser sees it (None when the app answers 401)."""
    driver.get(stack.app_url + "/me")
    body = driver.find_element(By.TAG_NAME, "body").text
    try:
        return json.loads(body)
    except ValueError:
        return None


@pytest.fixture(scope="module", params=SHAPES)
def stack(request):
    # One origin is tested in its production form: TLS at nginx, Gatehouse at https://…/auth.
    s = RailsStack(shape=request.param, cross_site_providers=True, https=request.param == "one-origin")
    s.create_user("ada@example.com", PASSWORD, name="Ada Lovelace")
    yield s
    s.stop()


@pytest.fixture
def browser():
    driver = make_browser(accept_insecure_certs=True)   # the one-origin stack's throwaway certificate
    yield driver
    driver.quit()


def app_sign_in_with_password(driver, stack, email="ada@example.com"):
    driver.get(stack.app_url + "/")
    # Not signed in anywhere: the silent prompt=none try comes back login_required and the app shows its page.
    wait_for_url(driver, lambda u: u == stack.app_url + "/session/new")
    click_and_wait(driver, driver.find_element(By.ID, "sign-in-gatehouse"))
    assert driver.current_url.startswith(stack.issuer + "/sign-in"), driver.current_url
    fill(driver, email=email, password=PASSWORD)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, f'form[action$="/sign-in"] button[type=submit]'))
    wait_for_url(driver, lambda u: u == stack.app_url + "/")


def test_password_sign_in_ends_in_the_apps_session(stack, browser):
    app_sign_in_with_password(browser, stack)
    screenshot(browser, f"rails-{stack.shape}-home")
    assert "Signed in as Ada Lovelace" in browser.find_element(By.ID, "welcome").text
    # Real Turbo runs in the app's layout (Hotwire Native needs it on every page).
    assert browser.execute_script("return typeof window.Turbo === 'object' && !!Turbo.session")
    data = me(browser, stack)
    assert data["email"] == "ada@example.com" and data["sub"]
    # The app's cookies never collide with Gatehouse's: every Gatehouse cookie has the gatehouse_ stem. On one origin
    # (https) they are __Secure-gatehouse_* with Path=/auth and Secure — a __Host- cookie would need Path=/ — so the app
    # never receives them; on their own host (plain-http loopback here) they are plain gatehouse_* at Path=/.
    cookies = browser.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    app = {c["name"]: c for c in cookies if "gatehouse_" not in c["name"]}
    gatehouse = {c["name"]: c for c in cookies if "gatehouse_" in c["name"]}
    assert {"session_id", "_example_session"} <= set(app) and app["session_id"]["path"] == "/"
    if stack.shape == "one-origin":
        assert "__Secure-gatehouse_session" in gatehouse, cookies
        assert all(n.startswith("__Secure-gatehouse_") and c["path"] == "/auth" and c["secure"] for n, c in gatehouse.items())
        assert app["session_id"]["secure"] and app["_example_session"]["secure"]
    else:
        assert "gatehouse_session" in gatehouse, cookies
        assert all(n.startswith("gatehouse_") and c["path"] == "/" for n, c in gatehouse.items())


@pytest.mark.parametrize("provider", ["apple", "google", "github"])
def test_simulated_provider_sign_in_ends_in_the_apps_session(stack, browser, provider):
    browser.get(stack.app_url + "/session/new")
    click_and_wait(browser, browser.find_element(By.ID, f"sign-in-{provider}"))
    if browser.current_url.startswith(stack.issuer + "/sign-in"):
        # Without the provider= hint Gatehouse shows its sign-in page: pick the provider there.
        click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, f'form[action$="/auth/{provider}"] button'))
    email = f"{provider}-{stack.shape}@example.com"
    # The simulated provider lives on another site (localhost) than Gatehouse (127.0.0.1).
    assert browser.current_url.startswith("http://localhost:"), browser.current_url
    fill(browser, email=email, name="Grace Hopper")
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, 'button[value="allow"]'))
    wait_for_url(browser, lambda u: u == stack.app_url + "/")
    screenshot(browser, f"rails-{stack.shape}-{provider}")
    assert me(browser, stack)["email"] == email
    # Apple answers with a cross-site form_post (no SameSite=Lax cookie on it); Gatehouse finishes on a first-party GET.
    method = "POST" if provider == "apple" else "GET"
    log = "".join(stack.gatehouse.lines)
    assert f'"method":"{method}","path":"/auth/{provider}/callback"' in log
    assert f'"path":"/auth/{provider}/finish"' in log


def test_sign_out_ends_both_sessions(stack, browser):
    app_sign_in_with_password(browser, stack)
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#sign-out button, button#sign-out, #sign-out"))
    wait_for_url(browser, lambda u: u == stack.app_url + "/session/signed-out")
    assert me(browser, stack) is None, "the app's session ended"
    browser.get(stack.issuer + "/account")
    assert browser.current_url.startswith(stack.issuer + "/sign-in"), "Gatehouse's session ended too"
    # And the app's silent try now finds no Gatehouse session: it lands on the app's sign-in page.
    browser.get(stack.app_url + "/")
    wait_for_url(browser, lambda u: u == stack.app_url + "/session/new")


def test_silent_re_login_with_prompt_none(stack, browser):
    app_sign_in_with_password(browser, stack)
    first = me(browser, stack)
    # The app's own session is gone (expired, cookie cleared); Gatehouse's is still there.
    browser.delete_cookie("session_id")
    browser.delete_cookie("_example_session")
    assert me(browser, stack) is None
    browser.get(stack.app_url + "/")
    wait_for_url(browser, lambda u: u == stack.app_url + "/")   # no Gatehouse page on the way
    second = me(browser, stack)
    assert second["sub"] == first["sub"] and second["session_id"] != first["session_id"]


def test_bad_client_secret_shows_a_clear_error_page(stack, browser):
    """Gatehouse's registered secret was rotated and the app still presents the old one: the token request fails with
    invalid_client and the app shows a page saying which setting to check."""
    database = sqlite3.connect(f"{stack.gatehouse.dir}/gatehouse.sqlite")
    (original,) = database.execute("SELECT secret_hash FROM oauth_clients WHERE id = ?", (CLIENT_ID,)).fetchone()
    rotated = hashlib.sha256(b"a-new-secret-the-app-does-not-have-yet").hexdigest()
    with database:
        database.execute("UPDATE oauth_clients SET secret_hash = ? WHERE id = ?", (rotated, CLIENT_ID))
    time.sleep(5.5)   # Gatehouse caches a client for 5 s: a rotation reaches every process within that
    try:
        browser.get(stack.app_url + "/session/new")
        click_and_wait(browser, browser.find_element(By.ID, "sign-in-gatehouse"))
        fill(browser, email="ada@example.com", password=PASSWORD)
        click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, 'form[action$="/sign-in"] button[type=submit]'))
        wait_for_url(browser, lambda u: u.startswith(stack.app_url + "/login/failure"))
        screenshot(browser, f"rails-{stack.shape}-bad-secret")
        text = browser.find_element(By.ID, "sign-in-error").text
        assert "invalid_client" in text and "GATEHOUSE_CLIENT_SECRET" in text
        assert me(browser, stack) is None
    finally:
        with database:
            database.execute("UPDATE oauth_clients SET secret_hash = ? WHERE id = ?", (original, CLIENT_ID))
        database.close()
