"""DPoP across two `gatehouse serve` processes on one PostgreSQL database: a proof's `jti` is
single-use through the shared store, so a proof replayed to the other process (even at the same
instant) is refused; a nonce one process hands out is accepted by the other; a DPoP-bound refresh
token lifted from the client is refused by either process without the key. The client is
e2e/dpop_client.py, written from RFC 9449 alone."""
import requests
import pytest

from dpop_client import DPoPKey, DPoPSession
from mp_support import CLIENT_ID, CLIENT_SECRET, PASSWORD, Database, Pair, race

PUBLIC = "http://127.0.0.1:18999"   # the pair's shared public URL: what proofs name in htu
ROUNDS = 10


@pytest.fixture(scope="module")
def pair():
    database = Database()
    pair = Pair(database, config={
        "rate_limits": {"enabled": False}, "oauth": {"refresh_grace_seconds": 0, "dpop_nonce": True},
        "clients": [{"id": CLIENT_ID, "name": "MP App", "type": "confidential", "secret": CLIENT_SECRET,
                     "redirect_uris": ["http://127.0.0.1:9/mp/callback"], "grants": ["refresh_token", "password"],
                     "first_party": True},
                    {"id": "mp-native", "name": "MP Native", "type": "public", "grants": ["refresh_token", "password"],
                     "first_party": True, "dpop_bound_access_tokens": True}],
    })
    yield pair
    pair.stop()
    database.drop()


def password_grant(url, proof, client="mp-native"):
    data = {"grant_type": "password", "username": "lin@example.com", "password": PASSWORD, "scope": "openid offline_access"}
    auth = None
    if client == "mp-native":
        data["client_id"] = client
    else:
        auth = (CLIENT_ID, CLIENT_SECRET)
    return requests.post(url + "/oauth/token", data=data, auth=auth, headers={"DPoP": proof}, timeout=15)


def nonce_from(url, key):
    refused = password_grant(url, key.proof("POST", PUBLIC + "/oauth/token"))
    assert refused.status_code == 400 and refused.json()["error"] == "use_dpop_nonce", refused.text
    return refused.headers["DPoP-Nonce"]


def test_a_nonce_from_one_process_is_accepted_by_the_other(pair):
    key = DPoPKey()
    nonce = nonce_from(pair.a.url, key)
    issued = password_grant(pair.b.url, key.proof("POST", PUBLIC + "/oauth/token", nonce=nonce))
    assert issued.status_code == 200, issued.text
    assert issued.json()["token_type"] == "DPoP"


def test_a_replayed_proof_is_refused_by_the_other_process_even_at_the_same_instant(pair):
    key = DPoPKey()
    nonce = nonce_from(pair.a.url, key)
    for round_number in range(ROUNDS):
        proof = key.proof("POST", PUBLIC + "/oauth/token", nonce=nonce)
        results = race([lambda i=i: password_grant(pair.processes[i % 2].url, proof) for i in range(4)])
        statuses = [r.status_code for r in results]
        assert statuses.count(200) == 1, f"round {round_number}: {statuses} {[r.text[:120] for r in results]}"
        assert all(r.json()["error"] == "invalid_dpop_proof" for r in results if r.status_code != 200)
    # And one after the other: used at A, refused at B.
    proof = key.proof("POST", PUBLIC + "/oauth/token", nonce=nonce)
    assert password_grant(pair.a.url, proof).status_code == 200
    again = password_grant(pair.b.url, proof)
    assert again.status_code == 400 and again.json()["error"] == "invalid_dpop_proof"


def test_a_stolen_bound_refresh_token_is_refused_by_both_processes(pair):
    owner = DPoPSession(DPoPKey(), requests.Session(), PUBLIC)
    issued = owner.request("POST", pair.a.url + "/oauth/token", data={
        "grant_type": "password", "client_id": "mp-native", "username": "lin@example.com", "password": PASSWORD,
        "scope": "openid offline_access"})
    assert issued.status_code == 200 and issued.json()["token_type"] == "DPoP", issued.text
    refresh = issued.json()["refresh_token"]
    form = {"grant_type": "refresh_token", "client_id": "mp-native", "refresh_token": refresh}
    thief = DPoPSession(DPoPKey("EdDSA"), requests.Session(), PUBLIC)
    for process in pair.processes:
        bare = requests.post(process.url + "/oauth/token", data=form, timeout=15)
        assert bare.status_code == 400, bare.text   # no proof: this client needs one
        stolen = thief.request("POST", process.url + "/oauth/token", data=form)
        assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant", stolen.text
    # The owner's key still works at either process (the refused attempts rotated nothing).
    refreshed = owner.request("POST", pair.b.url + "/oauth/token", data=form)
    assert refreshed.status_code == 200, refreshed.text
    access = refreshed.json()["access_token"]
    info = owner.request("GET", pair.a.url + "/oauth/userinfo", access_token=access)
    assert info.status_code == 200, info.text
    # htu names the public URL; the proof is for userinfo, and it carries the token's hash.
    assert requests.get(pair.a.url + "/oauth/userinfo", headers={"Authorization": "Bearer " + access}, timeout=15).status_code == 401
