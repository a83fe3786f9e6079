"""The API guide's DPoP check (examples/api/gatehouse_dpop.rb, ruby-jwt) and per-API audiences (RFC 8707):
real DPoP-bound tokens from Gatehouse, proofs from the RFC-built Python client (e2e/dpop_client.py)."""
import json
import pathlib
import subprocess
import sys

import pytest
import requests

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import ROOT, GatehouseProcess  # noqa: E402
from dpop_client import DPoPKey  # noqa: E402

CHECK = ROOT / "examples" / "api" / "check_dpop"
NOTES, BILLING = "https://notes.api.example", "https://billing.api.example"
SECRET = "api-dpop-client-secret-0123456789ab"


@pytest.fixture(scope="module")
def gatehouse():
    process = GatehouseProcess(config={
        "oauth": {"resources": [NOTES, BILLING], "api_scopes": ["notes.read"]},
        "clients": [{"id": "api-client", "name": "API client", "type": "confidential", "secret": SECRET,
                     "grants": ["client_credentials"], "scopes": ["notes.read"], "first_party": True}]})
    yield process
    process.stop()


def token(gatehouse, key, resource):
    form = {"grant_type": "client_credentials", "scope": "notes.read"}
    if resource:
        form["resource"] = resource
    return requests.post(gatehouse.url + "/oauth/token", data=form, auth=("api-client", SECRET),
                         headers={"DPoP": key.proof("POST", gatehouse.url + "/oauth/token")}, timeout=10)


def check(issuer, audience, requests_):
    out = subprocess.run([str(CHECK), issuer, audience], input="".join(json.dumps(r) + "\n" for r in requests_), text=True,
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_a_dpop_bound_token_for_one_api_is_accepted_there_only_with_a_fresh_proof_of_its_key(gatehouse):
    key = DPoPKey()
    issued = token(gatehouse, key, NOTES)
    assert issued.status_code == 200, issued.text
    assert issued.json()["token_type"] == "DPoP"
    access = issued.json()["access_token"]
    url = NOTES + "/notes?page=2"
    proof = key.proof("GET", url, access_token=access)
    thief = DPoPKey()
    results = check(gatehouse.url, NOTES, [
        {"token": access, "proof": proof, "method": "GET", "url": url},
        {"token": access, "proof": proof, "method": "GET", "url": url},                       # replayed
        {"token": access, "proof": key.proof("POST", url, access_token=access), "method": "GET", "url": url},
        {"token": access, "proof": key.proof("GET", NOTES + "/other", access_token=access), "method": "GET", "url": url},
        {"token": access, "proof": key.proof("GET", url), "method": "GET", "url": url},      # no ath
        {"token": access, "proof": thief.proof("GET", url, access_token=access), "method": "GET", "url": url},
        {"token": access, "proof": "", "method": "GET", "url": url},                          # presented as Bearer
    ])
    assert results[0] == {"ok": True, "sub": "api-client", "jkt": key.thumbprint}
    assert [r["ok"] for r in results[1:]] == [False] * 6, results
    assert "already used" in results[1]["error"] and "htm" in results[2]["error"] and "htu" in results[3]["error"]
    assert "ath" in results[4]["error"] and "key" in results[5]["error"]

    # Per-API audiences: the notes token is refused by the billing API, whatever the proof.
    billing = check(gatehouse.url, BILLING, [{"token": access, "proof": key.proof("GET", BILLING + "/invoices", access_token=access),
                                              "method": "GET", "url": BILLING + "/invoices"}])
    assert billing[0]["ok"] is False and billing[0]["status"] == 401
    other = token(gatehouse, key, BILLING).json()["access_token"]
    assert check(gatehouse.url, BILLING, [{"token": other, "proof": key.proof("GET", BILLING + "/invoices", access_token=other),
                                           "method": "GET", "url": BILLING + "/invoices"}])[0]["ok"] is True


def test_an_unknown_resource_is_invalid_target(gatehouse):
    refused = token(gatehouse, DPoPKey(), "https://unknown.api.example")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_target"
