"""Bearer calls are cheap because each process caches *verified signatures*, but a revocation
done through the other process must still be refused on the very next call. Each process has warmed its
cache with the token before the revocation, so a cache that outlived it would answer 200 here."""
import pytest
import requests

from mp_support import CLIENT_ID, CLIENT_SECRET, REDIRECT, Database, Pair, authorization_code, sign_in, token_request


@pytest.fixture(scope="module")
def pair():
    database = Database()
    pair = Pair(database, config={"rate_limits": {"enabled": False}, "oauth": {"refresh_grace_seconds": 0}})
    yield pair
    pair.stop()
    database.drop()


def issue(pair):
    _, session = sign_in(pair.a.url, "lin@example.com")
    code, verifier = authorization_code(pair.a.url, session)
    issued = token_request(pair.a.url, {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                        "code_verifier": verifier})
    assert issued.status_code == 200, issued.text
    return issued.json()


def userinfo(process, access):
    return requests.get(process.url + "/oauth/userinfo", headers={"Authorization": f"Bearer {access}"}, timeout=10)


def introspect(process, token):
    return requests.post(process.url + "/oauth/introspect", data={"token": token}, auth=(CLIENT_ID, CLIENT_SECRET),
                         timeout=10).json()


def warm(pair, access):
    for process in pair.processes:
        for _ in range(3):
            assert userinfo(process, access).status_code == 200
        assert introspect(process, access)["active"] is True


def test_access_token_revoked_on_one_process_is_refused_by_the_other_at_once(pair):
    tokens = issue(pair)
    warm(pair, tokens["access_token"])
    revoked = requests.post(pair.b.url + "/oauth/revoke", data={"token": tokens["access_token"]},
                            auth=(CLIENT_ID, CLIENT_SECRET), timeout=10)
    assert revoked.status_code == 200
    refused = userinfo(pair.a, tokens["access_token"])
    assert refused.status_code == 401 and "invalid_token" in refused.headers.get("WWW-Authenticate", "")
    assert introspect(pair.a, tokens["access_token"]) == {"active": False}
    assert userinfo(pair.b, tokens["access_token"]).status_code == 401


def test_family_revoked_on_one_process_kills_its_access_tokens_on_the_other(pair):
    tokens = issue(pair)
    warm(pair, tokens["access_token"])
    # Revoking the refresh token through B revokes the whole family, access tokens included (RFC 7009 §2.1).
    revoked = requests.post(pair.b.url + "/oauth/revoke", data={"token": tokens["refresh_token"],
                                                                "token_type_hint": "refresh_token"},
                            auth=(CLIENT_ID, CLIENT_SECRET), timeout=10)
    assert revoked.status_code == 200
    assert userinfo(pair.a, tokens["access_token"]).status_code == 401
    assert introspect(pair.a, tokens["access_token"]) == {"active": False}


def test_replayed_refresh_token_on_one_process_kills_the_family_on_the_other(pair):
    tokens = issue(pair)
    rotated = token_request(pair.b.url, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert rotated.status_code == 200
    successor = rotated.json()
    warm(pair, successor["access_token"])
    # The first refresh token again, after its rotation and with no grace window: reuse, family revoked.
    replay = token_request(pair.b.url, {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]})
    assert replay.status_code == 400
    assert userinfo(pair.a, successor["access_token"]).status_code == 401
    assert userinfo(pair.a, tokens["access_token"]).status_code == 401
