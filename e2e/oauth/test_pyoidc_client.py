"""pyoidc (the `oic` package), a second independent OpenID Connect client: discovery, code flow through a
headless-Chromium sign-in, token exchange with the library's own ID-token checks (RS256 signature from
our JWKS — pyoidc's default and OIDC Core §15.1's mandatory algorithm —, issuer, audience, nonce, at_hash),
and userinfo."""
import subprocess
import urllib.parse

import pytest
from oic import rndstr
from oic.oic import Client
from oic.oic.message import AuthorizationResponse, RegistrationResponse
from oic.utils.authn.client import CLIENT_AUTHN_METHOD
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, GatehouseProcess

SECRET = "pyoidc-test-secret-0123456789abcdefghijk"
REDIRECT = "http://127.0.0.1:9/pyoidc/callback"


@pytest.fixture
def server():
    process = GatehouseProcess(config={"clients": [
        {"id": "pyoidc-app", "name": "pyoidc", "type": "confidential", "secret": SECRET, "redirect_uris": [REDIRECT],
         "first_party": True},
    ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "oic@example.com", "--password-stdin", "--verified"],
                   input="pyoidc user password\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def test_pyoidc_code_flow(server, browsers):
    client = Client(client_id="pyoidc-app", client_authn_method=CLIENT_AUTHN_METHOD)
    client.provider_config(server.url)
    assert "RS256" in client.provider_info["id_token_signing_alg_values_supported"]
    client.store_registration_info(RegistrationResponse(client_id="pyoidc-app", client_secret=SECRET, redirect_uris=[REDIRECT],
                                                        id_token_signed_response_alg="RS256"))
    client.redirect_uris = [REDIRECT]
    state, nonce = rndstr(), rndstr()
    request = client.construct_AuthorizationRequest(request_args={
        "client_id": "pyoidc-app", "response_type": "code", "scope": ["openid", "email"], "nonce": nonce,
        "redirect_uri": REDIRECT, "state": state})
    driver = browsers()
    driver.get(request.request(client.authorization_endpoint))
    driver.find_element(By.NAME, "email").send_keys("oic@example.com")
    driver.find_element(By.NAME, "password").send_keys("pyoidc user password")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]').click()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(REDIRECT))

    response = client.parse_response(AuthorizationResponse, info=urllib.parse.urlsplit(driver.current_url).query, sformat="urlencoded")
    assert response["state"] == state
    tokens = client.do_access_token_request(state=state, request_args={"code": response["code"]}, authn_method="client_secret_basic")
    id_token = tokens["id_token"]   # verified by pyoidc against our JWKS while parsing
    assert id_token.jws_header["alg"] == "RS256", "pyoidc verified an RS256 signature with our published RSA key"
    rsa_kids = {key.kid for key in client.keyjar.get_verify_key(owner=server.url, key_type="RSA")}
    assert id_token.jws_header["kid"] in rsa_kids
    assert id_token["iss"] == server.url and id_token["aud"] == ["pyoidc-app"] and id_token["nonce"] == nonce
    userinfo = client.do_user_info_request(state=state)
    assert userinfo["email"] == "oic@example.com" and userinfo["sub"] == id_token["sub"]
