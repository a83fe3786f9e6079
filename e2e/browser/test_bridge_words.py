"""The app bridge script's messages are the page's words, in the page's language: Chromium presents itself as a
Hotwire Native web view with the `sign-in-with-oauth` component (its user agent), a stand-in native side answers the
bridge's message with a failure, and the message the script puts next to the provider form is the catalogue's German
one. A refused link ticket is explained in German too (the server words its JSON refusal in the page's language)."""
import subprocess

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, ROOT, GatehouseProcess
from test_accounts import click_and_wait, fill

APP_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
             "Hotwire Native iOS; Turbo Native iOS; bridge-components: [sign-in-with-oauth]")
PASSWORD = "correct horse battery"
# The native side: supports every component and answers each message with `error` (no description of its own).
NATIVE_SIDE = """
    const error = arguments[0];
    window.HotwireNative.web.setAdapter({platform: "ios", supportsComponent: () => true, receive: (message) =>
        setTimeout(() => window.HotwireNative.web.receive({id: message.id, component: message.component,
                                                          event: message.event, data: {error}}), 10)});
"""


def catalogue(tag):
    text = (ROOT / "Sources" / "GatehouseServer" / "Assets" / "Files" / f"{tag}.catalogue").read_text()
    return dict(line.split(" = ", 1) for line in text.splitlines() if " = " in line and not line.startswith("#"))


@pytest.fixture
def server():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={"branding": {"product_name": "Acme Cloud"}})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "lin@example.com", "--password-stdin", "--verified"],
                   input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def german_web_view(browsers):
    driver = browsers(user_agent=APP_AGENT)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": "de"}})
    return driver


def shown_error(driver):
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".notice.native-error"))
    notice = driver.find_element(By.CSS_SELECTOR, ".notice.native-error")
    assert notice.get_attribute("role") == "alert"
    return notice.text


def test_a_failed_app_sign_in_is_reported_in_the_pages_language(server, browsers):
    driver = german_web_view(browsers)
    driver.get(server.url + "/sign-in")
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de"
    driver.execute_script(NATIVE_SIDE, "expired_flow")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/auth/google"] button').click()
    expected = catalogue("de")["bridge.sign_in_incomplete"].replace("{error}", "expired_flow")
    assert shown_error(driver) == expected
    assert expected != "Signing in did not complete (expired_flow)."
    assert driver.current_url == server.url + "/sign-in", "the tap went to the app, not to the provider"


def test_a_refused_link_is_explained_in_the_pages_language(server, browsers):
    driver = german_web_view(browsers)
    driver.get(server.url + "/sign-in")
    fill(driver, email="lin@example.com", password=PASSWORD)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]'))
    assert driver.current_url == server.url + "/account"
    driver.execute_script(NATIVE_SIDE, "unused")
    # The page names no app (no Gatehouse-App/… in the agent): the server refuses the link ticket, in German.
    driver.find_element(By.CSS_SELECTOR, 'form[action="/auth/google/link"] button').click()
    assert shown_error(driver) == catalogue("de")["message.app_not_registered"]
