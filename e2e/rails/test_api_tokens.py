"""The API guide's Ruby verifier (examples/api/gatehouse_access_token.rb, ruby-jwt) against real Gatehouse tokens."""
import base64
import json
import pathlib
import subprocess
import sys

import pytest
import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import BINARY, ROOT, GatehouseProcess  # noqa: E402

CHECK = ROOT / "examples" / "api" / "check_token"
AUDIENCE = "https://api.example"
SECRET = "api-client-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def gatehouse():
    process = GatehouseProcess(config={
        "oauth": {"access_token_audience": AUDIENCE, "api_scopes": ["notes.read", "notes.write"]},
        "clients": [{"id": "api-client", "name": "API client", "type": "confidential", "secret": SECRET,
                     "redirect_uris": ["https://app.example/cb"], "first_party": True,
                     "grants": ["client_credentials", "password", "refresh_token"],
                     "scopes": ["notes.read", "notes.write"]}]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "api@example.com", "--password-stdin", "--verified"],
                   input="api user password 123\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def token(gatehouse, **form):
    response = requests.post(gatehouse.url + "/oauth/token", data=form, auth=("api-client", SECRET), timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def check(issuer, tokens, audience=AUDIENCE, scope=None):
    args = [str(CHECK), issuer, audience] + ([scope] if scope else [])
    out = subprocess.run(args, input="".join(t + "\n" for t in tokens), text=True, capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_ruby_verifier_accepts_real_access_tokens_and_rejects_everything_else(gatehouse):
    service = token(gatehouse, grant_type="client_credentials", scope="notes.read")["access_token"]
    user = token(gatehouse, grant_type="password", username="api@example.com", password="api user password 123",
                 scope="openid notes.read")
    header, payload, signature = service.split(".")
    forged_payload = base64.urlsafe_b64encode(json.dumps({**json.loads(base64.urlsafe_b64decode(payload + "==")),
                                                          "scope": "notes.read notes.write"}).encode()).rstrip(b"=").decode()
    results = check(gatehouse.url, [service, user["access_token"], user["id_token"], f"{header}.{forged_payload}.{signature}",
                                    "not-a-jwt"], scope="notes.read")
    assert results[0] == {"ok": True, "sub": "api-client", "scope": "notes.read"}
    assert results[1]["ok"] and results[1]["sub"] != "api-client" and "notes.read" in results[1]["scope"].split()
    assert results[2]["ok"] is False and results[2]["status"] == 401, "an ID token is not an access token"
    assert results[3] == {"ok": False, "status": 401, "error": results[3]["error"]} and "ignature" in results[3]["error"]
    assert results[4]["status"] == 401

    # Scopes, audience and issuer are checked.
    assert check(gatehouse.url, [service], scope="notes.write")[0]["status"] == 403
    assert check(gatehouse.url, [service], audience="https://other-api.example")[0]["status"] == 401
    assert check(gatehouse.url + "/elsewhere", [service])[0]["ok"] is False


def test_revocation_trade_off_local_validation_versus_introspection(gatehouse):
    access = token(gatehouse, grant_type="client_credentials", scope="notes.read")["access_token"]
    revoke = requests.post(gatehouse.url + "/oauth/revoke", data={"token": access}, auth=("api-client", SECRET), timeout=10)
    assert revoke.status_code == 200
    # A self-contained JWT stays valid to a local verifier until it expires (10 minutes by default)...
    assert check(gatehouse.url, [access])[0]["ok"] is True
    # ...while introspection asks Gatehouse and sees the revocation at once.
    introspection = requests.post(gatehouse.url + "/oauth/introspect", data={"token": access}, auth=("api-client", SECRET),
                                  timeout=10).json()
    assert introspection["active"] is False
