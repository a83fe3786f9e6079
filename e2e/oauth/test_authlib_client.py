"""A real third-party OAuth/OIDC client (Authlib) against Gatehouse: discovery, code + PKCE through a
headless-Chromium sign-in, token exchange, ID-token validation by the library, userinfo, refresh,
revoke and introspection."""
import subprocess

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.jose.errors import BadSignatureError
from authlib.oidc.core import CodeIDToken
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, GatehouseProcess, screenshot

SECRET = "authlib-test-secret-0123456789abcdefghij"
REDIRECT = "http://127.0.0.1:9/authlib/callback"   # nothing listens there: the browser's URL carries the code


def authlib_server(client=None, **config):
    """Gatehouse with the one client Authlib plays (`client`: its extra settings) and the user who signs in
    (`config`: further top-level settings)."""
    process = GatehouseProcess(config={**config, "clients": [
        {"id": "authlib-app", "name": "Authlib App", "type": "confidential", "secret": SECRET,
         "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token"], "first_party": False, **(client or {})},
    ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "lin@example.com", "--password-stdin", "--verified"],
                   input="a long enough password\n", text=True, env=env, check=True, capture_output=True)
    return process


@pytest.fixture
def server():
    process = authlib_server()
    yield process
    process.stop()


def sign_in_and_consent(driver, url):
    driver.get(url)
    driver.find_element(By.NAME, "email").send_keys("lin@example.com")
    driver.find_element(By.NAME, "password").send_keys("a long enough password")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]').click()
    WebDriverWait(driver, 10).until(lambda d: "Allow" in d.page_source or d.current_url.startswith(REDIRECT))
    if not driver.current_url.startswith(REDIRECT):
        screenshot(driver, "oauth-consent")
        driver.find_element(By.CSS_SELECTOR, 'button[value="allow"]').click()
        WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(REDIRECT))
    return driver.current_url


def test_authlib_code_pkce_refresh_revoke_introspect(server, browsers):
    metadata = requests.get(server.url + "/.well-known/openid-configuration", timeout=5).json()
    assert metadata["issuer"] == server.url

    session = OAuth2Session("authlib-app", SECRET, scope="openid profile email offline_access",
                            redirect_uri=REDIRECT, code_challenge_method="S256")
    verifier = "v" * 20 + "-authlib-pkce-verifier-0123456789"
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce="nonce-42")
    callback = sign_in_and_consent(browsers(), url)
    assert "iss=" in callback, "RFC 9207 iss in the authorization response"

    token = session.fetch_token(metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    assert token["token_type"] == "Bearer" and "refresh_token" in token and "id_token" in token

    assert "RS256" in metadata["id_token_signing_alg_values_supported"]
    jwks = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=5).json())
    # Authlib's RS256-only decoder and its OpenID Connect ID-token claims (nonce, at_hash, iss, aud, exp).
    rs256 = JsonWebToken(["RS256"])
    claims = rs256.decode(token["id_token"], jwks, claims_cls=CodeIDToken,
                          claims_options={"iss": {"essential": True, "value": server.url}},
                          claims_params={"nonce": "nonce-42", "client_id": "authlib-app", "access_token": token["access_token"]})
    claims.validate()
    assert claims.header["alg"] == "RS256"
    head, body, signature = token["id_token"].split(".")
    forged = ".".join([head, body, ("A" if signature[0] != "A" else "B") + signature[1:]])
    with pytest.raises(BadSignatureError):
        rs256.decode(forged, jwks)
    assert claims["email"] == "lin@example.com" and claims["email_verified"] is True

    userinfo = session.get(metadata["userinfo_endpoint"]).json()
    assert userinfo["sub"] == claims["sub"] and userinfo["email"] == "lin@example.com"

    old_refresh = token["refresh_token"]
    refreshed = session.refresh_token(metadata["token_endpoint"], refresh_token=old_refresh)
    assert refreshed["refresh_token"] != old_refresh and refreshed["access_token"] != token["access_token"]

    introspected = requests.post(metadata["introspection_endpoint"], data={"token": refreshed["access_token"]},
                                 auth=("authlib-app", SECRET), timeout=5).json()
    assert introspected["active"] is True and introspected["client_id"] == "authlib-app"

    revoked = session.revoke_token(metadata["revocation_endpoint"], token=refreshed["refresh_token"],
                                   token_type_hint="refresh_token")
    assert revoked.status_code == 200
    again = requests.post(metadata["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
                          auth=("authlib-app", SECRET), timeout=5)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    inactive = requests.post(metadata["introspection_endpoint"], data={"token": refreshed["refresh_token"]},
                             auth=("authlib-app", SECRET), timeout=5).json()
    assert inactive == {"active": False}


def test_authlib_sees_rfc6749_errors(server):
    metadata = requests.get(server.url + "/.well-known/openid-configuration", timeout=5).json()
    bad = requests.post(metadata["token_endpoint"], data={"grant_type": "authorization_code", "code": "forged", "redirect_uri": REDIRECT},
                        auth=("authlib-app", SECRET), timeout=5)
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant"
    assert bad.headers["Cache-Control"] == "no-store"
    wrong = requests.post(metadata["token_endpoint"], data={"grant_type": "client_credentials"}, auth=("authlib-app", "x" * 40), timeout=5)
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client" and "WWW-Authenticate" in wrong.headers
