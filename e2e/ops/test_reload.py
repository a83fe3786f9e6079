"""SIGHUP (`systemctl reload`): a client added to the configuration file works at once, a socket setting
changed in it is logged as needing a restart, a file that does not parse leaves the running set-up as it was,
and the process keeps serving throughout."""
import json
import os
import signal
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import GatehouseProcess  # noqa: E402

FIRST = {"id": "first-app", "type": "confidential", "secret": "first-secret-0123456789abcdef0123", "grants": ["client_credentials"]}
SECOND = {"id": "second-app", "type": "confidential", "secret": "second-secret-0123456789abcdef012", "grants": ["client_credentials"]}


def token(server, client):
    return requests.post(server.url + "/oauth/token", data={"grant_type": "client_credentials"},
                         auth=(client["id"], client["secret"]), timeout=5)


def wait_for_line(server, text, after, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(text in line for line in server.lines[after:]):
            return True
        time.sleep(0.05)
    return False


def test_sighup_applies_clients_reports_restart_settings_and_survives_a_broken_file():
    server = GatehouseProcess(config={"access_log": False, "clients": [FIRST]})
    config_path = os.path.join(server.dir, "config.json")
    try:
        assert token(server, FIRST).status_code == 200
        assert token(server, SECOND).status_code == 401

        with open(config_path, "w") as f:
            json.dump({"access_log": False, "clients": [FIRST, SECOND], "http": {"max_body_bytes": 131072}}, f)
        mark = len(server.lines)
        server.process.send_signal(signal.SIGHUP)
        assert wait_for_line(server, "configuration reloaded", mark), "".join(server.lines[-20:])
        assert token(server, SECOND).status_code == 200, "the new client works without a restart"
        assert token(server, FIRST).status_code == 200
        restart = [json.loads(line) for line in server.lines[mark:] if "next restart" in line]
        assert [entry["setting"] for entry in restart] == ["http.max_body_bytes"]
        assert all(entry["level"] == "warn" for entry in restart)

        with open(config_path, "w") as f:
            f.write("{ not json")
        mark = len(server.lines)
        server.process.send_signal(signal.SIGHUP)
        assert wait_for_line(server, "configuration reload failed", mark)
        assert token(server, SECOND).status_code == 200, "a broken file changes nothing"
        assert server.process.poll() is None
    finally:
        server.stop()
