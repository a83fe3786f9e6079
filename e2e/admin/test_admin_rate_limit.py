"""The admin API's per-client rate limit (`rate_limits.admin_api_per_client`): 429 problem JSON with
Retry-After once a client's allowance is used up, counted per admin client (not per token, not for
callers without a valid token), exact under concurrent requests."""
import concurrent.futures
import os
import sys

import pytest
import requests

sys.path.insert(0, os.path.dirname(__file__))
from admin_support import ADMIN_SECRET  # noqa: E402

from conftest import GatehouseProcess  # noqa: E402

LIMIT = 5
SECOND_SECRET = "second-admin-secret-0123456789abcdef0123"
RACER_SECRET = "racer-admin-secret-0123456789abcdef01234"


def admin_client(client_id, secret):
    return {"id": client_id, "type": "confidential", "secret": secret, "grants": ["client_credentials"],
            "scopes": ["admin"], "admin": True}


@pytest.fixture(scope="module")
def server():
    process = GatehouseProcess(config={
        "rate_limits": {"admin_api_per_client": [{"limit": LIMIT, "window_seconds": 60}]},
        "clients": [admin_client("admin-app", ADMIN_SECRET), admin_client("admin-two", SECOND_SECRET),
                    admin_client("admin-racer", RACER_SECRET)],
    })
    yield process
    process.stop()


def bearer(server, client_id, secret):
    r = requests.post(server.url + "/oauth/token", data={"grant_type": "client_credentials", "scope": "admin"},
                      auth=(client_id, secret), timeout=10)
    assert r.status_code == 200, r.text
    return {"Authorization": "Bearer " + r.json()["access_token"]}


def test_a_client_past_its_allowance_gets_429_problem_json_with_retry_after(server):
    users = server.url + "/admin/v1/users"
    h = bearer(server, "admin-app", ADMIN_SECRET)
    # Callers without a valid token are refused before anything is counted.
    for _ in range(LIMIT + 2):
        assert requests.get(users, headers={"Authorization": "Bearer nonsense"}, timeout=5).status_code == 401
    assert [requests.get(users, headers=h, timeout=5).status_code for _ in range(LIMIT)] == [200] * LIMIT
    refused = requests.get(users, headers=h, timeout=5)
    assert refused.status_code == 429
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    problem = refused.json()
    assert problem["status"] == 429 and problem["title"] == "Too many requests" and problem["type"] == "about:blank"
    # Every operation shares the allowance, and nothing is done while refused.
    created = requests.post(users, json={"email": "limited@example.com"}, headers=h, timeout=5)
    assert created.status_code == 429
    # A new token for the same client is the same client.
    assert requests.get(users, headers=bearer(server, "admin-app", ADMIN_SECRET), timeout=5).status_code == 429
    # Another admin client is not affected, and sees that the refused create did nothing.
    other = bearer(server, "admin-two", SECOND_SECRET)
    found = requests.get(users, params={"q": "limited@"}, headers=other, timeout=5)
    assert found.status_code == 200 and found.json()["users"] == []


def test_concurrent_requests_cannot_exceed_the_allowance(server):
    users = server.url + "/admin/v1/users"
    h = bearer(server, "admin-racer", RACER_SECRET)
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(lambda _: requests.get(users, headers=h, timeout=10).status_code, range(24)))
    assert sorted(statuses) == [200] * LIMIT + [429] * (24 - LIMIT), statuses


def test_the_openapi_document_declares_429(server):
    document = requests.get(server.url + "/admin/v1/openapi.json", timeout=5).json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method in ("get", "post", "patch", "delete"):
                assert "429" in operation["responses"], (method, path)
