"""Two processes started at the same moment on a fresh PostgreSQL database both
start (migrations under the advisory lock; configured clients written idempotently), several times over."""
from mp_support import CLIENT_ID, Database, FAST_PASSWORDS, REDIRECT, race  # noqa: E402
import base64
import os
import secrets
import sys

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import GatehouseProcess  # noqa: E402


def test_two_processes_started_together_on_a_fresh_database_both_serve():
    for attempt in range(3):
        database = Database(prefix="gh_together")
        processes = []
        try:
            env = {
                "GATEHOUSE_DATABASE_URL": database.url + "?pool_size=2&connect_timeout=2",
                "GATEHOUSE_SECRET_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
                "GATEHOUSE_PUBLIC_URL": "http://127.0.0.1:18998",
            }
            config = {
                "access_log": False, "passwords": FAST_PASSWORDS,
                "clients": [{"id": CLIENT_ID, "name": "MP App", "type": "confidential", "secret": "s" * 40,
                             "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token"]},
                            {"id": "mp-native", "name": "MP Native", "type": "public", "redirect_uris": ["com.example.mp:/cb"]}],
            }
            results = race([lambda: GatehouseProcess(extra_env=env, config=config) for _ in range(2)])
            processes.extend(results)
            for process in processes:
                assert process.process.poll() is None, "".join(process.lines[-20:])
                assert requests.get(process.url + "/readyz", timeout=5).status_code == 200
            assert database.query("SELECT count(*) FROM oauth_clients") == "2", f"attempt {attempt}"
        finally:
            for process in processes:
                process.stop()
            database.drop()
