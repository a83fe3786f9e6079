"""A Gatehouse with an admin client, and tokens for it from the client-credentials grant."""
import requests

from conftest import GatehouseProcess

ADMIN_SECRET = "admin-secret-0123456789abcdef0123456789"
OTHER_SECRET = "other-secret-0123456789abcdef0123456789"

CONFIG = {
    "rate_limits": {"enabled": False},
    "clients": [
        {"id": "admin-app", "type": "confidential", "secret": ADMIN_SECRET, "grants": ["client_credentials"],
         "scopes": ["admin"], "admin": True},
        # Registered with the admin scope but not flagged admin: must never get in.
        {"id": "other-app", "type": "confidential", "secret": OTHER_SECRET, "grants": ["client_credentials"],
         "scopes": ["admin", "reports"]},
    ],
}


def start():
    return GatehouseProcess(config=CONFIG)


def token(server, client_id="admin-app", secret=ADMIN_SECRET, scope="admin"):
    r = requests.post(server.url + "/oauth/token", data={"grant_type": "client_credentials", "scope": scope},
                      auth=(client_id, secret), timeout=10)
    return r
