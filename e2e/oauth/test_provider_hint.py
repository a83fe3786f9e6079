"""One-tap provider sign-in: an Authlib client adds `provider=google` to its authorization
URL, headless Chromium goes straight from /oauth/authorize to the (simulated, demo-mode) provider — no
Gatehouse chooser — and back to the client with a code, which Authlib exchanges and verifies (RS256).
An unknown provider comes back to the client as an RFC 6749 error redirect."""
import urllib.parse

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import GatehouseProcess, screenshot

SECRET = "provider-hint-secret-0123456789abcdefgh"
REDIRECT = "http://127.0.0.1:9/hint/callback"   # nothing listens there: the browser's URL carries the code


@pytest.fixture
def demo():
    process = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config={"clients": [
        {"id": "hint-app", "name": "Hint App", "type": "confidential", "secret": SECRET, "redirect_uris": [REDIRECT],
         "first_party": True},
    ]})
    yield process
    process.stop()


def metadata(server):
    return requests.get(server.url + "/.well-known/openid-configuration", timeout=5).json()


@pytest.mark.parametrize("provider", ["google", "github"])
def test_provider_hint_skips_the_chooser_end_to_end(demo, browsers, provider):
    meta = metadata(demo)
    session = OAuth2Session("hint-app", SECRET, scope="openid email profile", redirect_uri=REDIRECT, code_challenge_method="S256")
    verifier = "hint-verifier-" + "x" * 40
    url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce="n-hint",
                                                  provider=provider)
    driver = browsers()
    driver.get(url)
    # The first page the user sees is the provider's own (the simulator under /_sim), not /sign-in.
    WebDriverWait(driver, 10).until(lambda d: "/_sim/" in d.current_url)
    assert "/sign-in" not in driver.current_url
    screenshot(driver, f"provider-hint-{provider}")
    driver.find_element(By.NAME, "email").send_keys(f"tap-{provider}@example.com")
    name = driver.find_elements(By.NAME, "name")
    if name:
        name[0].clear()
        name[0].send_keys("Tap User")
    driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]').click()
    WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(REDIRECT))
    callback = driver.current_url
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    assert query["state"] == state and "code" in query

    token = session.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    jwks = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=5).json())
    claims = JsonWebToken(["RS256"]).decode(token["id_token"], jwks, claims_cls=CodeIDToken,
                                            claims_params={"nonce": "n-hint", "client_id": "hint-app",
                                                           "access_token": token["access_token"]})
    claims.validate()
    assert claims["email"] == f"tap-{provider}@example.com"
    assert provider in claims["amr"], "the ID token says how the user signed in"


def test_unknown_provider_is_an_error_redirect_to_the_client(demo):
    meta = metadata(demo)
    session = OAuth2Session("hint-app", SECRET, scope="openid", redirect_uri=REDIRECT, code_challenge_method="S256")
    url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier="v" * 50, provider="myspace")
    response = requests.get(url, allow_redirects=False, timeout=5)
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith(REDIRECT + "?")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    assert query["error"] == "invalid_request" and query["state"] == state and "myspace" in query["error_description"]
    assert query["iss"] == demo.url
