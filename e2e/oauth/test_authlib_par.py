"""Pushed authorization requests (RFC 9126) with Authlib as the client: Authlib builds the
authorization request (PKCE, state, nonce) and authenticates the push with its own
client_secret_basic; the browser (headless Chromium) is sent with only `client_id` and the
`request_uri`; Authlib exchanges the code and validates the ID token. A `request_uri` works once,
and a client registered with `require_pushed_authorization_requests` cannot skip the push."""
import urllib.parse

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

from conftest import ROOT
from test_authlib_client import REDIRECT, SECRET, authlib_server, sign_in_and_consent


@pytest.fixture
def server():
    process = authlib_server({"require_pushed_authorization_requests": True})
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


NOTES, BILLING = "https://notes.api.example", "https://billing.api.example"


@pytest.fixture
def api_server():
    process = authlib_server(oauth={"resources": [NOTES, BILLING]})
    yield process
    process.stop()


def test_a_push_with_a_dpop_proof_and_two_resources_binds_the_code_to_the_key_and_the_apis(api_server, browsers):
    """RFC 9449 §10.1 and RFC 8707 through PAR: Authlib builds the request, the push carries a DPoP proof made by the
    RFC-built client (e2e/dpop_client.py) and `resource` twice; the code is then redeemed only with that key and only
    for one of those APIs, and its access token has that API alone as `aud` and the key as `cnf.jkt`."""
    import base64
    import json
    import sys
    sys.path.insert(0, str(ROOT / "e2e"))
    from dpop_client import DPoPKey, DPoPSession

    metadata = requests.get(api_server.url + "/.well-known/openid-configuration", timeout=5).json()
    key, thief = DPoPKey(), DPoPKey()
    session = OAuth2Session("authlib-app", SECRET, scope="openid email", redirect_uri=REDIRECT, code_challenge_method="S256")
    verifier = "d" * 20 + "-authlib-dpop-verifier-0123456789"

    def push():
        url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce="dpop-nonce")
        form = list(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query)) + [("resource", NOTES), ("resource", BILLING)]
        pushed = requests.post(metadata["pushed_authorization_request_endpoint"], data=form, timeout=5,
                               auth=(session.client_id, SECRET),
                               headers={"DPoP": key.proof("POST", metadata["pushed_authorization_request_endpoint"])})
        assert pushed.status_code == 201, pushed.text
        return metadata["authorization_endpoint"] + "?" + urllib.parse.urlencode(
            {"client_id": "authlib-app", "request_uri": pushed.json()["request_uri"]})

    def redeem(callback, proof_key, resource):
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))["code"]
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier}
        if resource:
            form["resource"] = resource
        return requests.post(metadata["token_endpoint"], data=form, auth=(session.client_id, SECRET), timeout=5,
                             headers={"DPoP": proof_key.proof("POST", metadata["token_endpoint"])})

    # A browser each: every code starts from a fresh sign-in and consent.
    stolen = redeem(sign_in_and_consent(browsers(), push()), thief, NOTES)
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
    outside = redeem(sign_in_and_consent(browsers(), push()), key, "https://other.example")
    assert outside.status_code == 400 and outside.json()["error"] == "invalid_target"
    token = redeem(sign_in_and_consent(browsers(), push()), key, BILLING)
    assert token.status_code == 200, token.text
    assert token.json()["token_type"] == "DPoP"
    access = token.json()["access_token"]
    payload = access.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["aud"] == BILLING and claims["cnf"]["jkt"] == key.thumbprint

    # The bound token works at a resource (userinfo) only with its key's proofs (RFC 9449 §7.1, with ath).
    resource = DPoPSession(key, requests.Session()).request("GET", metadata["userinfo_endpoint"], access_token=access)
    assert resource.status_code == 200 and resource.json()["email"] == "lin@example.com"
    foreign = DPoPSession(thief, requests.Session()).request("GET", metadata["userinfo_endpoint"], access_token=access)
    assert foreign.status_code == 401
