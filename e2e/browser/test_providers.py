"""Sign in with simulated providers in headless Chromium (GATEHOUSE_DEMO=1 mounts the simulator)."""
import pytest
from selenium.webdriver.common.by import By

from conftest import GatehouseProcess, screenshot
from test_accounts import click_and_wait, fill


@pytest.fixture
def demo():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"})
    yield process
    process.stop() if hasattr(process, "stop") else process.process.terminate()


def provider_sign_in(driver, base, provider, email, path="/sign-in", action=None):
    driver.get(base + path)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, f'form[action="{action or "/auth/" + provider}"] button'))
    fill(driver, email=email, name="Ada Lovelace")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]'))


@pytest.mark.parametrize("provider", ["apple", "google", "github"])
def test_sign_in_with_simulated_provider(demo, browsers, provider):
    driver = browsers()
    provider_sign_in(driver, demo.url, provider, f"{provider}@example.com")
    if "/finish" in driver.current_url or driver.current_url.endswith("/callback"):
        click_and_wait(driver, driver.find_element(By.TAG_NAME, "button"))
    screenshot(driver, f"provider-{provider}")
    assert driver.current_url == demo.url + "/account"
    assert f"{provider}@example.com" in driver.page_source


def test_link_and_unlink_a_second_method(demo, browsers):
    driver = browsers()
    provider_sign_in(driver, demo.url, "google", "linker@example.com")
    assert driver.current_url == demo.url + "/account"
    provider_sign_in(driver, demo.url, "github", "linker@example.com", path="/account", action="/auth/github/link")
    assert "sign-in method was added" in driver.page_source
    items = driver.find_elements(By.CSS_SELECTOR, "#methods li")
    assert len(items) == 2
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, 'li[data-provider="github"] button'))
    assert "sign-in method was removed" in driver.page_source
    assert len(driver.find_elements(By.CSS_SELECTOR, "#methods li")) == 1
    # The last method has no remove button.
    assert not driver.find_elements(By.CSS_SELECTOR, "#methods li button")
