"""`gatehouse backup FILE` on a serving SQLite database, then the restore of docs/backup.md: users signed up
through the pages and an OAuth refresh token survive the copy, and the copy is taken while a concurrent load of
writes and reads runs against the server without one request failing."""
import base64
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "multiprocess"))
from conftest import BINARY, GatehouseProcess  # noqa: E402
from mp_support import (CLIENT_ID, CLIENT_SECRET, FAST_PASSWORDS, PASSWORD, REDIRECT, account_page,  # noqa: E402
                        authorization_code, sign_in, token_request)

CONFIG = {
    "access_log": False,
    "passwords": FAST_PASSWORDS,
    # The load signs up more accounts from one address than the default limit lets through.
    "rate_limits": {"sign_up_per_ip": [{"limit": 1000, "window_seconds": 60}]},
    "clients": [{"id": CLIENT_ID, "name": "Backup App", "type": "confidential", "secret": CLIENT_SECRET,
                 "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token"], "first_party": True}],
}


def sign_up(base, email):
    http = requests.Session()
    page = http.get(base + "/sign-up", timeout=10)
    token = re.search(r'name="csrf_token" value="([^"]*)"', page.text).group(1)
    response = http.post(base + "/sign-up", data={"csrf_token": token, "email": email, "name": "", "password": PASSWORD},
                         allow_redirects=False, timeout=10)
    assert response.status_code in (302, 303), (response.status_code, response.text[:300])
    return http


def confirm(base, http, link):
    """The link's GET only shows a page; its form's POST (in the creator's session, password given) proves."""
    page = http.get(link, timeout=10)
    token = re.search(r'name="csrf_token" value="([^"]*)"', page.text).group(1)
    action = re.search(r'<form method="post" action="([^"]+)"', page.text).group(1)
    response = http.post(base + action, data={"csrf_token": token, "password": PASSWORD}, allow_redirects=False, timeout=10)
    assert (response.status_code == 303 and "email-verified" in response.headers.get("Location", "")) \
        or (response.status_code == 200 and "Email confirmed" in response.text), (response.status_code, response.text[:300])


def refresh_token_for(base, email):
    status, session = sign_in(base, email)
    assert status in (302, 303) and session, status
    code, verifier = authorization_code(base, session)
    response = token_request(base, {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                    "code_verifier": verifier})
    assert response.status_code == 200, response.text
    return response.json()["refresh_token"]


def backup(env, *args):
    return subprocess.run([str(BINARY), "backup", *args], env=env, text=True, capture_output=True)


def test_backup_while_serving_then_restore_serves_the_same_users_and_tokens():
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    server = GatehouseProcess(extra_env={"GATEHOUSE_SECRET_KEY": key}, config=CONFIG)
    restored = None
    try:
        emails = [f"backup-{n}@example.com" for n in range(6)]
        for email in emails:
            http = sign_up(server.url, email)
            confirm(server.url, http, server.wait_for_link(email, "/email/verify/"))
        kept = refresh_token_for(server.url, emails[0])      # never used on the original server again
        rotating = [refresh_token_for(server.url, emails[1])]

        env = dict(os.environ, GATEHOUSE_DATABASE_URL=server._env["GATEHOUSE_DATABASE_URL"], GATEHOUSE_SECRET_KEY=key)
        config = os.path.join(server.dir, "config.json")
        target_dir = tempfile.mkdtemp(prefix="gatehouse-backup-")
        target = os.path.join(target_dir, "copy.sqlite")

        # The load: refresh rotations and sign-ups (writes) and account pages (reads), until the backup is done.
        done = threading.Event()
        failures, counts = [], {"requests": 0}
        status, session = sign_in(server.url, emails[2])
        assert status in (302, 303) and session

        def rotate():
            while not done.is_set():
                response = token_request(server.url, {"grant_type": "refresh_token", "refresh_token": rotating[0]})
                counts["requests"] += 1
                if response.status_code != 200:
                    failures.append(("refresh", response.status_code, response.text[:200]))
                    return
                rotating[0] = response.json()["refresh_token"]

        def sign_ups():
            n = 0
            while not done.is_set():
                try:
                    sign_up(server.url, f"during-{n}@example.com")
                    counts["requests"] += 1
                except AssertionError as error:
                    failures.append(("sign-up", str(error)))
                    return
                n += 1

        def reads():
            while not done.is_set():
                response = account_page(server.url, session)
                counts["requests"] += 1
                if response.status_code != 200:
                    failures.append(("account", response.status_code))
                    return

        threads = [threading.Thread(target=f) for f in (rotate, sign_ups, reads)]
        for thread in threads:
            thread.start()
        try:
            while counts["requests"] < 10 and not failures:    # the load is running before the copy starts
                time.sleep(0.01)
            before = counts["requests"]
            # One page per step, so the copy takes many steps while commits land between them.
            result = backup(env, target, "--config", config, "--pages-per-step", "1")
            during = counts["requests"] - before
        finally:
            done.set()
            for thread in threads:
                thread.join()
        assert result.returncode == 0, result.stderr
        steps = int(re.search(r"(\d+) steps", result.stdout).group(1))
        assert steps > 1 and "integrity_check ok" in result.stdout, result.stdout
        assert not failures, failures
        assert during > 0, "no request completed while the copy ran"

        # Refusals: an existing file without --force, an unwritable place, PostgreSQL.
        again = backup(env, target, "--config", config)
        assert again.returncode == 2 and "already exists" in again.stderr and "--force" in again.stderr
        assert backup(env, target, "--config", config, "--force").returncode == 0
        missing = backup(env, os.path.join(target_dir, "no-such-dir", "x.sqlite"), "--config", config)
        assert missing.returncode == 2 and "does not exist" in missing.stderr
        if os.geteuid() != 0:   # root writes anywhere; the check is access(2)
            locked = tempfile.mkdtemp(prefix="gatehouse-locked-")
            os.chmod(locked, 0o500)
            unwritable = backup(env, os.path.join(locked, "x.sqlite"), "--config", config)
            assert unwritable.returncode == 2 and "not writable" in unwritable.stderr
        postgres = backup(dict(env, GATEHOUSE_DATABASE_URL="postgres://gatehouse@127.0.0.1:1/gatehouse"),
                          os.path.join(target_dir, "pg.sqlite"))
        assert postgres.returncode == 2 and "pg_dump" in postgres.stderr, postgres.stderr

        # Restore (docs/backup.md): stop the service, put the copy in place with no -wal/-shm beside it, start.
        port = server.port
        server.stop()
        server = None
        data = tempfile.mkdtemp(prefix="gatehouse-restored-")
        shutil.copyfile(target, os.path.join(data, "gatehouse.sqlite"))
        assert not os.path.exists(os.path.join(data, "gatehouse.sqlite-wal"))
        restored = GatehouseProcess(extra_env={"GATEHOUSE_SECRET_KEY": key,
                                               "GATEHOUSE_DATABASE_URL": f"sqlite://{data}/gatehouse.sqlite"},
                                    config=CONFIG, port=port)
        for email in emails:
            status, session = sign_in(restored.url, email)
            assert status in (302, 303) and session, (email, status)
            assert email in account_page(restored.url, session).text
        response = token_request(restored.url, {"grant_type": "refresh_token", "refresh_token": kept})
        assert response.status_code == 200, response.text
        assert response.json()["refresh_token"] != kept
    finally:
        for process in (server, restored):
            if process is not None and process.process.poll() is None:
                process.stop()
