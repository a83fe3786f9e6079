"""The admin API end to end: authorization, every operation, problem JSON for bad input."""
import os
import sys

import pytest
import requests

sys.path.insert(0, os.path.dirname(__file__))
from admin_support import OTHER_SECRET, start, token  # noqa: E402


@pytest.fixture(scope="module")
def server():
    process = start()
    yield process
    process.stop()


def test_only_admin_clients_get_in(server):
    assert requests.get(server.url + "/admin/v1/users", timeout=5).status_code == 401
    r = requests.get(server.url + "/admin/v1/users", headers={"Authorization": "Bearer nonsense"}, timeout=5)
    assert r.status_code == 401 and r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["status"] == 401
    # A client not flagged admin cannot even be granted the scope.
    refused = token(server, "other-app", OTHER_SECRET, "admin")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_scope"
    # Its other API tokens are refused by the admin API.
    reports = token(server, "other-app", OTHER_SECRET, "reports").json()["access_token"]
    r = requests.get(server.url + "/admin/v1/users", headers={"Authorization": f"Bearer {reports}"}, timeout=5)
    assert r.status_code == 403 and r.json()["title"] == "Forbidden"


def test_user_lifecycle(server):
    access = token(server).json()["access_token"]
    h = {"Authorization": f"Bearer {access}"}
    api = server.url + "/admin/v1"
    created = requests.post(api + "/users", json={"email": "Admin.Made@Example.com", "name": "Made", "email_verified": True},
                            headers=h, timeout=5)
    assert created.status_code == 201, created.text
    user = created.json()
    assert user["email"] == "admin.made@example.com" and user["email_verified"] and not user["has_password"]
    dup = requests.post(api + "/users", json={"email": "admin.made@example.com"}, headers=h, timeout=5)
    assert dup.status_code == 409 and dup.headers["Content-Type"] == "application/problem+json"
    for i in range(3):
        assert requests.post(api + "/users", json={"email": f"page{i}@example.com"}, headers=h, timeout=5).status_code == 201

    # Search and cursor pagination.
    first = requests.get(api + "/users", params={"q": "PAGE", "limit": 2}, headers=h, timeout=5).json()
    assert [u["email"] for u in first["users"]] == ["page0@example.com", "page1@example.com"] and first["next_cursor"]
    second = requests.get(api + "/users", params={"q": "page", "limit": 2, "cursor": first["next_cursor"]}, headers=h, timeout=5).json()
    assert [u["email"] for u in second["users"]] == ["page2@example.com"] and second["next_cursor"] is None

    uid = user["id"]
    assert requests.get(api + f"/users/{uid}", headers=h, timeout=5).json()["name"] == "Made"
    patched = requests.patch(api + f"/users/{uid}", json={"name": None, "email_verified": False}, headers=h, timeout=5).json()
    assert patched["name"] is None and patched["email_verified"] is False
    assert requests.post(api + f"/users/{uid}/disable", headers=h, timeout=5).json()["disabled"] is True
    assert requests.post(api + f"/users/{uid}/enable", headers=h, timeout=5).json()["disabled"] is False
    assert requests.get(api + f"/users/{uid}/sessions", headers=h, timeout=5).json() == {"sessions": []}
    assert requests.get(api + f"/users/{uid}/identities", headers=h, timeout=5).json() == {"identities": []}
    events = requests.get(api + f"/users/{uid}/audit", headers=h, timeout=5).json()["events"]
    assert {"sign_up", "account.updated", "account.disabled"} <= {e["type"] for e in events}
    only = requests.get(api + f"/users/{uid}/audit", params={"type": "account.disabled"}, headers=h, timeout=5).json()["events"]
    assert [e["type"] for e in only] == ["account.disabled"]
    assert requests.delete(api + f"/users/{uid}/sessions/00", headers=h, timeout=5).status_code == 404
    assert requests.delete(api + f"/users/{uid}", headers=h, timeout=5).status_code == 204
    gone = requests.get(api + f"/users/{uid}", headers=h, timeout=5)
    assert gone.status_code == 404 and gone.json()["status"] == 404


@pytest.mark.parametrize("body, content_type", [
    (b"{not json", "application/json"),
    (b'{"email": "x@example.com", "admin": true}', "application/json"),
    (b'{"email": 5}', "application/json"),
    (b'[1, 2]', "application/json"),
    (b'{"email": "x@example.com"}', "text/plain"),
])
def test_bad_bodies_are_400_problems(server, body, content_type):
    h = {"Authorization": "Bearer " + token(server).json()["access_token"], "Content-Type": content_type}
    r = requests.post(server.url + "/admin/v1/users", data=body, headers=h, timeout=5)
    assert r.status_code == 400 and r.headers["Content-Type"] == "application/problem+json", r.text
    assert r.json()["status"] == 400


@pytest.mark.parametrize("query", ["cursor=garbage", "limit=0", "limit=abc", "limit=1&limit=2", "bogus=1"])
def test_bad_queries_are_400_problems(server, query):
    h = {"Authorization": "Bearer " + token(server).json()["access_token"]}
    r = requests.get(server.url + "/admin/v1/users?" + query, headers=h, timeout=5)
    assert r.status_code == 400 and r.headers["Content-Type"] == "application/problem+json", r.text
