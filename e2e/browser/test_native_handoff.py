"""Flow F2 outside the app: without the Hotwire Native user agent the bridge does nothing and the provider
forms sign in on the web. The hand-off itself runs under the Hotwire Native emulator in e2e/native/."""
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


def test_without_the_native_bridge_the_form_signs_in_on_the_web(server, browsers):
    browser = browsers()
    browser.get(server.url + "/sign-in")
    browser.find_element(By.CSS_SELECTOR, 'form[action="/auth/google"] button').click()
    WebDriverWait(browser, 10).until(lambda d: "/_sim/google/" in d.current_url)
    assert "/_sim/google/o/oauth2/v2/auth" in browser.current_url
