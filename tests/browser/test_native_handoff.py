"""Flow F2 end to end: a "web view" (Chromium with the Hotwire Native iOS user agent and a stub for
webkit.messageHandlers.bridge) records the bridge message; a "system browser" (an HTTP client keeping
cookies) opens startPath, signs in with the simulated provider and ends at the app's custom scheme
(captured, not followed); the web view redeems and is signed in."""
import re
import urllib.parse

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import GatehouseProcess, screenshot

APP_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 "
          "Gatehouse-App/demo-native Hotwire Native iOS; Turbo Native iOS; bridge-components: [sign-in-with-oauth]")
STUB = "window.__bridge = []; window.webkit = { messageHandlers: { bridge: { postMessage: (m) => window.__bridge.push(m) } } };"


@pytest.fixture
def server():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={"clients": [
        {"id": "demo-native", "name": "Demo App", "type": "public", "redirect_uris": ["com.example.demo:/oauth"], "first_party": True,
         "native": {"callback_schemes": ["demoapp"], "bundle_ids": ["com.example.demo"]}},
    ]})
    yield process
    process.stop()


def hidden_fields(html):
    return {m.group(1): m.group(2).replace("&amp;", "&") for m in re.finditer(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html)}


def form_action(html):
    return re.search(r'<form[^>]*action="([^"]+)"', html).group(1).replace("&amp;", "&")


def system_browser_sign_in(base, start_path, provider_email):
    """Follows the system browser from startPath to the custom-scheme redirect; returns that URL."""
    browser = requests.Session()
    page = browser.get(base + start_path, timeout=10)
    assert page.status_code == 200, page.text[:300]
    response = browser.post(base + form_action(page.text), data=hidden_fields(page.text), allow_redirects=False, timeout=10)
    location = response.headers["Location"]
    picker = browser.get(location, timeout=10)
    fields = hidden_fields(picker.text)
    fields.update({"email": provider_email, "name": "Native User", "action": "allow"})
    action = urllib.parse.urljoin(location, form_action(picker.text))
    response = browser.post(action, data=fields, allow_redirects=False, timeout=10)
    if response.status_code == 200:   # Apple: an auto-posting form_post page
        response = browser.post(urllib.parse.urljoin(action, form_action(response.text)), data=hidden_fields(response.text),
                                allow_redirects=False, timeout=10)
    for _ in range(5):
        location = response.headers.get("Location", "")
        if not location or location.startswith("demoapp:"):
            return location
        response = browser.get(urllib.parse.urljoin(base, location), allow_redirects=False, timeout=10)
    return response.headers.get("Location", "")


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_hand_off_from_system_browser_into_the_web_view(server, browsers, provider):
    web_view = browsers(user_agent=APP_UA)
    web_view.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STUB})
    web_view.get(server.url + "/sign-in")
    web_view.find_element(By.CSS_SELECTOR, f'form[action="/auth/{provider}"] button').click()
    WebDriverWait(web_view, 10).until(lambda d: d.execute_script("return window.__bridge.length") > 0)
    message = web_view.execute_script("return window.__bridge[0]")
    assert isinstance(message["id"], str) and message["component"] == "sign-in-with-oauth" and message["event"] == "click"
    assert message["data"]["metadata"]["url"] == web_view.current_url
    start_path, redeem_path = message["data"]["startPath"], message["data"]["redeemPath"]
    assert start_path.startswith(f"/native/start?provider={provider}&app=demo-native&challenge=")
    assert redeem_path.startswith("/native/redeem?verifier=")
    assert "/sign-in" in web_view.current_url, "in the app the form did not navigate"

    callback = system_browser_sign_in(server.url, start_path, f"{provider}.native@example.com")
    assert callback.startswith("demoapp://auth-callback?token="), callback
    token = urllib.parse.parse_qs(urllib.parse.urlsplit(callback).query)["token"][0]

    web_view.get(server.url + redeem_path + "&token=" + urllib.parse.quote(token))
    assert web_view.current_url == server.url + "/account"
    assert f"{provider}.native@example.com" in web_view.page_source
    screenshot(web_view, f"native-handoff-{provider}")
    status = requests.get(server.url + "/native/session", cookies={c["name"]: c["value"] for c in web_view.get_cookies()}, timeout=5)
    assert status.status_code == 200 and status.json()["email"] == f"{provider}.native@example.com"

    # Redeeming the same token again (a hijacked URL replayed) fails.
    web_view.get(server.url + redeem_path + "&token=" + urllib.parse.quote(token))
    assert "Sign-in did not complete" in web_view.page_source


def test_without_the_native_bridge_the_form_signs_in_on_the_web(server, browsers):
    browser = browsers()
    browser.get(server.url + "/sign-in")
    browser.find_element(By.CSS_SELECTOR, 'form[action="/auth/google"] button').click()
    WebDriverWait(browser, 10).until(lambda d: "/_sim/google/" in d.current_url)
    assert "/_sim/google/o/oauth2/v2/auth" in browser.current_url
