"""Two Gatehouse processes on one PostgreSQL database: single-use holds across them, rate limits are
counted together, sessions and signing keys are shared.

There is no hand-off round here; the store-level race for hand-off tokens is in Tests/GatehouseStoreTests/Postgres/PostgresConcurrencyTests.swift."""
import time

import pytest
import requests

from mp_support import (CLIENT_ID, METRICS_TOKEN, REDIRECT, Database, Pair, account_page, authorization_code, race, sign_in,
                        token_request, wait_until)

ROUNDS = 15
RACERS = 8   # concurrent requests per round, alternating between the two processes


@pytest.fixture(scope="module")
def pair():
    database = Database()
    # Rate limits off here (the rate-limit test has its own pair) and no refresh grace window,
    # so a replayed refresh token is always refused. Keys re-read every second, so a rotation
    # shows quickly.
    pair = Pair(database, config={"rate_limits": {"enabled": False}, "oauth": {"refresh_grace_seconds": 0},
                                  "keys": {"refresh_interval_seconds": 1}, "maintenance": {"interval_seconds": 1}})
    yield pair
    pair.stop()
    database.drop()


def test_session_created_on_one_process_is_valid_on_the_other(pair):
    status, session = sign_in(pair.a.url, "lin@example.com")
    assert status == 303 and session
    on_b = account_page(pair.b.url, session)
    assert on_b.status_code == 200 and "lin@example.com" in on_b.text
    # Signing out through B ends it on A too.
    status, other = sign_in(pair.b.url, "lin@example.com")
    assert account_page(pair.a.url, other).status_code == 200


def test_authorization_code_and_refresh_token_are_single_use_across_processes(pair):
    _, session = sign_in(pair.a.url, "lin@example.com")
    for round_number in range(ROUNDS):
        code, verifier = authorization_code(pair.processes[round_number % 2].url, session)
        grant = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier}
        results = race([lambda i=i: token_request(pair.processes[i % 2].url, grant) for i in range(RACERS)])
        winners = [r for r in results if r.status_code == 200]
        # A code presented several times at once is a replay (RFC 6749 §4.1.2): at most one request can be
        # handed tokens before the replay is seen, and whatever it was handed is revoked by the replay.
        assert len(winners) <= 1, f"round {round_number}: {[r.status_code for r in results]}"
        assert all(r.status_code == 400 and r.json()["error"] == "invalid_grant" for r in results if r.status_code != 200)
        for winner in winners:
            reuse = token_request(pair.processes[round_number % 2].url,
                                  {"grant_type": "refresh_token", "refresh_token": winner.json()["refresh_token"]})
            assert reuse.status_code == 400, f"round {round_number}: tokens of a replayed code still work: {reuse.text}"

        # A replayed code revokes what it issued (RFC 6749 §4.1.2), so the refresh race starts from
        # a code exchanged once.
        code, verifier = authorization_code(pair.processes[(round_number + 1) % 2].url, session)
        issued = token_request(pair.processes[round_number % 2].url, {
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier})
        assert issued.status_code == 200, issued.text
        refresh = issued.json()["refresh_token"]
        grant = {"grant_type": "refresh_token", "refresh_token": refresh}
        results = race([lambda i=i: token_request(pair.processes[i % 2].url, grant) for i in range(RACERS)])
        winners = [r for r in results if r.status_code == 200]
        assert len(winners) == 1, f"round {round_number}: {[r.status_code for r in results]}"
        assert all(r.status_code == 400 for r in results if r.status_code != 200)


def test_refresh_family_rotates_across_processes(pair):
    """Alternating processes through a chain of rotations: each new token works on the other."""
    status, session = sign_in(pair.b.url, "lin@example.com")
    code, verifier = authorization_code(pair.b.url, session)
    token = token_request(pair.a.url, {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                       "code_verifier": verifier}).json()
    for step in range(6):
        response = token_request(pair.processes[step % 2].url,
                                 {"grant_type": "refresh_token", "refresh_token": token["refresh_token"]})
        assert response.status_code == 200, response.text
        token = response.json()


def test_rotated_key_is_published_by_both_processes(pair):
    def kids(process):
        return {key["kid"] for key in requests.get(process.url + "/oauth/jwks", timeout=5).json()["keys"]}

    before = kids(pair.a)
    assert kids(pair.b) == before
    output = pair.cli("keys", "rotate")
    started = time.time()
    # One new key per algorithm: RS256 (ID tokens) and ES256 (access tokens).
    assert wait_until(lambda: all(len(kids(p) - before) == 2 for p in pair.processes), timeout=10), output
    new = kids(pair.a) - before
    assert kids(pair.b) - before == new
    published = requests.get(pair.a.url + "/oauth/jwks", timeout=5).json()["keys"]
    assert {key["kty"] for key in published if key["kid"] in new} == {"EC", "RSA"}
    assert time.time() - started < 5, "published within the 1 s refresh interval (plus slack)"


def test_background_maintenance_purges_expired_rows_from_one_process(pair):
    now_ms = int(time.time() * 1000)
    pair.database.query(f"""INSERT INTO rate_limits (bucket, limit_key, window_start, window_end, hits) VALUES
        ('mp.test', 'expired', {now_ms - 120_000}, {now_ms - 60_000}, 3),
        ('mp.test', 'live', {now_ms}, {now_ms + 3_600_000}, 1)""")
    assert wait_until(lambda: pair.database.query("SELECT count(*) FROM rate_limits WHERE limit_key = 'expired'") == "0",
                      timeout=10)
    assert pair.database.query("SELECT count(*) FROM rate_limits WHERE limit_key = 'live'") == "1"
    # One lease, held by one of the two processes; that one logged and counted what it purged.
    assert pair.database.query("SELECT count(*) FROM leases WHERE name = 'maintenance'") == "1"
    purged = [p for p in pair.processes if any("maintenance purged expired rows" in line for line in p.lines)]
    assert len(purged) == 1, "only the lease holder purges"
    assert requests.get(purged[0].url + "/metrics", timeout=5).status_code == 401, "never anonymous on the public port"
    metrics = requests.get(purged[0].url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=5).text
    assert 'gatehouse_maintenance_purged_rows_total{table="rate_limits"}' in metrics


@pytest.fixture
def limited_pair():
    database = Database()
    pair = Pair(database, users=["lin@example.com"] + [f"user{i}@example.com" for i in range(12)])
    yield pair
    pair.stop()
    database.drop()


def test_rate_limits_are_counted_across_both_processes(limited_pair):
    pair = limited_pair
    # Per account: 5 a minute, failures split between the processes.
    statuses = [sign_in(pair.processes[i % 2].url, "lin@example.com", password="wrong password!")[0] for i in range(7)]
    assert statuses == [401] * 5 + [429] * 2, statuses
    # The correct password is refused too while limited, on either process.
    assert sign_in(pair.b.url, "lin@example.com")[0] == 429
    # Per IP (all from 127.0.0.1): 10 failures in 3 minutes across different accounts; refused attempts are
    # not failures, so 5 so far.
    statuses = [sign_in(pair.processes[i % 2].url, f"user{i}@example.com", password="wrong password!")[0] for i in range(6)]
    assert statuses == [401] * 5 + [429], statuses
