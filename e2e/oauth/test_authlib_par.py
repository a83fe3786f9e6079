"""Pushed authorization requests (RFC 9126) with Authlib as the client: Authlib builds the
authorization request (PKCE, state, nonce) and authenticates the push with its own
client_secret_basic; the browser (headless Chromium) is sent with only `client_id` and the
`request_uri`; Authlib exchanges the code and validates the ID token. A `request_uri` works once,
and a client registered with `require_pushed_authorization_requests` cannot skip the push."""
import subprocess
import urllib.parse

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

from conftest import BINARY, GatehouseProcess
from test_authlib_client import REDIRECT, SECRET, sign_in_and_consent


@pytest.fixture
def server():
    process = GatehouseProcess(config={"clients": [
        {"id": "authlib-app", "name": "Authlib App", "type": "confidential", "secret": SECRET,
         "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token"], "first_party": False,
         "require_pushed_authorization_requests": True},
    ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "lin@example.com", "--password-stdin", "--verified"],
                   input="a long enough password\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def test_authlib_pushes_the_request_and_signs_in_with_the_request_uri(server, browsers):
    metadata = requests.get(server.url + "/.well-known/openid-configuration", timeout=5).json()
    assert metadata["pushed_authorization_request_endpoint"] == server.url + "/oauth/par"
    assert metadata["require_pushed_authorization_requests"] is False   # server-wide: only this client must

    session = OAuth2Session("authlib-app", SECRET, scope="openid email", redirect_uri=REDIRECT, code_challenge_method="S256")
    verifier = "p" * 20 + "-authlib-par-verifier-0123456789"
    full_url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce="par-nonce")
    # The client must push: the same request sent through the browser is refused back to the client.
    skipped = requests.get(full_url, allow_redirects=False, timeout=5)
    assert skipped.status_code in (302, 303)
    assert "error=invalid_request" in skipped.headers["Location"]

    parameters = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(full_url).query))
    pushed = session.post(metadata["pushed_authorization_request_endpoint"], data=parameters,
                          auth=session.client_auth("client_secret_basic"), timeout=5)
    assert pushed.status_code == 201, pushed.text
    request_uri = pushed.json()["request_uri"]
    assert request_uri.startswith("urn:ietf:params:oauth:request_uri:") and 0 < pushed.json()["expires_in"] <= 600
    # Without client authentication the push is refused, as at the token endpoint.
    unauthenticated = requests.post(metadata["pushed_authorization_request_endpoint"], data=parameters, timeout=5)
    assert unauthenticated.status_code == 401 and unauthenticated.json()["error"] == "invalid_client"

    browser_url = metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(
        {"client_id": "authlib-app", "request_uri": request_uri})
    callback = sign_in_and_consent(browsers(), browser_url)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    assert query["state"] == state and "code" in query
    token = session.fetch_token(metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=5).json())
    claims = JsonWebToken(["RS256", "ES256"]).decode(token["id_token"], keys, claims_cls=CodeIDToken,
                                                     claims_options={"iss": {"value": server.url}},
                                                     claims_params={"nonce": "par-nonce", "client_id": "authlib-app"})
    claims.validate()
    assert claims["email"] == "lin@example.com"

    # The request_uri was used up by the sign-in: a second visit is refused with a page, never a redirect.
    again = requests.get(browser_url, allow_redirects=False, timeout=5)
    assert again.status_code == 400 and "Location" not in again.headers
