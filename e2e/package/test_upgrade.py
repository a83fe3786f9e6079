"""Upgrading a running install from the previous release's package, under load.

The previous release is the commit named by PREVIOUS_RELEASE_COMMIT in packaging/metadata, built from git history
by scripts/build-commit (its own scripts/package; cached per commit, so a machine pays once). The test does what
docs/packaging.md *Upgrading* tells an operator to do, with this harness as systemd (service_manager.py): install
the old .deb, set the port and config, start, seed users, sign-ins and refresh families, run a concurrent load of
form sign-ins, refresh-token rotations and userinfo calls, then `dpkg -i --force-confold` the new .deb while the load
runs. The new postinst stops the old service, migrates and starts the new one (Type=notify: started = READY=1).

Shown: every session, refresh family and account from before (and every session made during the load) is still
valid after; each migration is applied once, by the postinst, while nothing serves; no request fails outside the
restart window (stop asked → READY=1), and the failures inside it are counted and bounded.
"""
import json
import os
import pathlib
import pwd
import re
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
import requests

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "multiprocess"))
sys.path.insert(0, HERE)
from conftest import ARTIFACTS, ROOT, free_port  # noqa: E402
from mp_support import (CLIENT_ID, CLIENT_SECRET, FAST_PASSWORDS, PASSWORD, REDIRECT, account_page,  # noqa: E402
                        authorization_code, sign_in)
from service_manager import ServiceManager, read_env_file  # noqa: E402
from package_lock import machine_package_lock  # noqa: E402

DATA = pathlib.Path("/var/lib/gatehouse")
ETC = pathlib.Path("/etc/gatehouse")
ENV_FILE = ETC / "gatehouse.env"
DATABASE = DATA / "gatehouse.sqlite"
BACKUP = pathlib.Path("/var/backups/gatehouse-before-upgrade.sqlite")
USERS = [f"upgrade-{n}@example.com" for n in range(4)]
WORKERS = 4
# What the failures around the restart may add up to: the stop (in-flight requests finish), one migrate run and the
# start are each a few seconds at most on a loaded machine.
WINDOW_LIMIT_SECONDS = 60
# A failed request is "in the window" if it started no earlier than this before the stop was asked for (it may
# have been accepted by the old process's last moments) and ended no later than this after READY=1.
MARGIN_SECONDS = 1.0
# A worker waits this long after a failed request before its next one.
RETRY_SECONDS = 0.25

pytestmark = pytest.mark.skipif(os.environ.get("GATEHOUSE_SKIP_PACKAGE_TEST") == "1",
                                reason="GATEHOUSE_SKIP_PACKAGE_TEST=1: the Debian package tests were switched off explicitly")


def metadata():
    return dict(line.split("=", 1) for line in (ROOT / "packaging" / "metadata").read_text().splitlines()
                if "=" in line and not line.startswith("#"))


def build(*command, env=None):
    done = subprocess.run([str(c) for c in command], cwd=ROOT, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def packages():
    """(old .deb, new .deb, seconds the old one's cached build took when it was made)."""
    commit = metadata()["PREVIOUS_RELEASE_COMMIT"].strip('"')
    old = build(ROOT / "scripts" / "build-commit", commit, "package").stdout.strip().splitlines()[-1]
    seconds_file = pathlib.Path(old).parents[2] / "build-seconds"
    # lintian is test_package.py's check; here only the files matter.
    new = build(ROOT / "scripts" / "package", env={"LINTIAN": "0"})
    new = str(ROOT / re.search(r"package: (dist/\S+\.deb)", new.stdout).group(1))
    return old, new, seconds_file.read_text().strip() if seconds_file.exists() else None


def as_gatehouse(*args, input=None):
    """The CLI as the docs say to run it: as the gatehouse user, with the environment file loaded."""
    command = "set -a; . /etc/gatehouse/gatehouse.env; exec /usr/bin/gatehouse \"$@\""
    return subprocess.run(["runuser", "-u", "gatehouse", "--", "sh", "-c", command, "sh", *args,
                           "--config", str(ETC / "config.json")], input=input, capture_output=True, text=True,
                          timeout=60, cwd="/")


def set_env(values):
    lines = ENV_FILE.read_text().splitlines()
    kept = [line for line in lines if line.split("=", 1)[0] not in values]
    ENV_FILE.write_text("\n".join(kept + [f"{k}={v}" for k, v in values.items()]) + "\n")


def refresh_family(base, email):
    status, session = sign_in(base, email)
    assert status in (302, 303) and session, status
    code, verifier = authorization_code(base, session)
    response = requests.post(base + "/oauth/token", data={"grant_type": "authorization_code", "code": code,
                                                          "redirect_uri": REDIRECT, "code_verifier": verifier},
                             auth=(CLIENT_ID, CLIENT_SECRET), timeout=10)
    assert response.status_code == 200, response.text
    return session, response.json()


class Load:
    """WORKERS threads, each with its own user: refresh (rotating), userinfo, and every 4th round a form sign-in.

    A refresh whose answer was lost is retried with the same token (what a client does; the rotation's grace
    window gives the same successor). Every request is recorded: (start, end, kind, outcome)."""

    def __init__(self, base, tokens):
        self.base = base
        self.tokens = dict(tokens)          # email -> current refresh token
        self.access = {}
        self.sessions = []                  # (email, session cookie) made by the load's sign-ins
        self.records = []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(email,), daemon=True) for email in tokens]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _record(self, started, email, kind, outcome):
        self.records.append((started, time.time(), kind, outcome, email))

    def _call(self, email, kind, send):
        started = time.time()
        try:
            response = send()
        except requests.RequestException as error:
            self._record(started, email, kind, f"connection: {type(error).__name__}")
            return None
        outcome = "ok" if response.status_code in (200, 302, 303) else f"http {response.status_code}"
        self._record(started, email, kind, outcome)
        return response if outcome == "ok" else None

    def _run(self, email):
        round = 0
        while not self.stopping.is_set():
            round += 1
            round_started = time.time()
            answer = self._call(email, "refresh", lambda: requests.post(
                self.base + "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": self.tokens[email]},
                auth=(CLIENT_ID, CLIENT_SECRET), timeout=10))
            if answer is not None:
                body = answer.json()
                self.tokens[email], self.access[email] = body["refresh_token"], body["access_token"]
            if email in self.access:
                self._call(email, "userinfo", lambda: requests.get(
                    self.base + "/oauth/userinfo", headers={"Authorization": f"Bearer {self.access[email]}"}, timeout=10))
            if round % 4 == 0:
                started = time.time()
                try:
                    status, session = sign_in(self.base, email)
                    outcome = "ok" if status in (302, 303) and session else f"http {status}"
                except (requests.RequestException, AttributeError) as error:   # no page: no CSRF field to read
                    status, session, outcome = None, None, f"connection: {type(error).__name__}"
                self._record(started, email, "sign-in", outcome)
                if outcome == "ok":
                    self.sessions.append((email, session))
            # A client backs off after a failure instead of spinning on a refused connection.
            failed = any(r[3] != "ok" for r in self.records[-12:] if r[4] == email and r[0] >= round_started)
            time.sleep(RETRY_SECONDS if failed else 0.02)


def wait_ready(base, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if requests.get(base + "/readyz", timeout=1).status_code == 200:
                return True
        except requests.RequestException:
            pass
        time.sleep(0.1)
    return False


def test_upgrade_from_the_previous_release_under_load_keeps_data_and_fails_only_in_the_restart_window():
    assert os.geteuid() == 0, "the package test installs with dpkg -i and needs root"
    with machine_package_lock():
        if subprocess.run(["dpkg-query", "-W", "gatehouse"], capture_output=True).returncode == 0 \
                or DATA.exists() or ETC.exists() or BACKUP.exists():
            pytest.fail("a gatehouse package or its directories already exist on this machine; remove them "
                        "(dpkg --purge gatehouse; rm -rf /var/lib/gatehouse /etc/gatehouse)")
        user_before = subprocess.run(["getent", "passwd", "gatehouse"], capture_output=True).returncode == 0
        old_deb, new_deb, old_build_seconds = packages()
        manager = ServiceManager()
        try:
            upgrade_under_load(manager, old_deb, new_deb, old_build_seconds)
        finally:
            manager.stop()
            manager.dpkg("--purge", "gatehouse")
            manager.close()
            subprocess.run(["rm", "-rf", str(DATA), str(ETC), str(BACKUP), f"{BACKUP}-wal", f"{BACKUP}-shm"])
            if not user_before:
                subprocess.run(["deluser", "--system", "--quiet", "gatehouse"], capture_output=True)
                subprocess.run(["delgroup", "--system", "--quiet", "gatehouse"], capture_output=True)


def upgrade_under_load(manager, old_deb, new_deb, old_build_seconds):
    old_version = subprocess.run(["dpkg-deb", "-f", old_deb, "Version"], capture_output=True, text=True).stdout.strip()
    new_version = subprocess.run(["dpkg-deb", "-f", new_deb, "Version"], capture_output=True, text=True).stdout.strip()
    assert subprocess.run(["dpkg", "--compare-versions", new_version, "ge", old_version]).returncode == 0

    # 1. The previous release, installed and configured as its docs said.
    installed = manager.dpkg("-i", old_deb)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    set_env({"GATEHOUSE_LISTEN": f"127.0.0.1:{port}", "GATEHOUSE_PUBLIC_URL": base})
    config = {"access_log": False, "passwords": FAST_PASSWORDS,
              "clients": [{"id": CLIENT_ID, "name": "Upgrade App", "type": "confidential", "secret": CLIENT_SECRET,
                           "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token"],
                           "first_party": True}]}
    (ETC / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    manager.start()
    assert wait_ready(base), "".join(manager.output)
    for email in USERS:
        made = as_gatehouse("user", "create", "--email", email, "--password-stdin", "--verified", input=PASSWORD + "\n")
        assert made.returncode == 0, made.stdout + made.stderr
    db = sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True)
    versions_before = [row[0] for row in db.execute("SELECT version FROM gatehouse_schema_migrations ORDER BY version")]
    kept_session, kept = refresh_family(base, USERS[0])          # never used during the load
    families = {email: refresh_family(base, email) for email in USERS}
    sessions_before = [(email, session) for email, (session, _) in families.items()]

    # 2. Load, then the upgrade while it runs.
    load = Load(base, {email: tokens["refresh_token"] for email, (_, tokens) in families.items()})
    load.start()
    try:
        time.sleep(3)
        # The operator's first step: an online backup (consistent while the old release keeps serving).
        backup = subprocess.run(["sqlite3", str(DATABASE), f".backup '{BACKUP}'"], capture_output=True, text=True)
        assert backup.returncode == 0, backup.stderr
        copy = sqlite3.connect(f"file:{BACKUP}?mode=ro", uri=True)
        assert sorted(r[0] for r in copy.execute("SELECT email FROM users")) == sorted(USERS)
        copy.close()
        upgrade_started = time.time()
        upgraded = manager.dpkg("-i", "--force-confold", new_deb)
        upgrade_ended = time.time()
        time.sleep(3)
    finally:
        load.stop()
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr

    # The maintainer scripts asked for: stop, then (after migrate) start; the new one reported READY=1.
    asked = [argv for _, argv in manager.calls if "gatehouse.service" in argv and ("stop" in argv or "start" in argv)]
    assert asked[-2:] == [["deb-systemd-invoke", "stop", "gatehouse.service"],
                          ["deb-systemd-invoke", "start", "gatehouse.service"]], manager.calls
    events = [(t, what) for t, what in manager.events if t >= upgrade_started]
    kinds = [what for _, what in events]
    assert kinds[:4] == ["stopping", "stopped 0", "starting", "ready"], (kinds, "".join(manager.output[-50:]))
    stopping, stopped, ready = events[0][0], events[1][0], events[3][0]
    assert manager.running()
    assert requests.get(base + "/readyz", timeout=10).status_code == 200
    assert subprocess.run(["/usr/bin/gatehouse", "version"], capture_output=True, text=True).stdout.split()[1] == new_version

    # 3. Migrations: each once, by the postinst, while nothing served; the new server found none left.
    assert len(re.findall(r"migrated from schema version", upgraded.stdout + upgraded.stderr)) == 1, upgraded.stdout
    rows = db.execute("SELECT version, applied_at FROM gatehouse_schema_migrations ORDER BY version").fetchall()
    versions_after = [v for v, _ in rows]
    assert len(versions_after) == len(set(versions_after))
    assert versions_after[:len(versions_before)] == versions_before and len(versions_after) > len(versions_before)
    new_rows = [(v, applied) for v, applied in rows if v not in versions_before]
    for version, applied in new_rows:
        applied_seconds = applied / 1000 if applied > 10**11 else applied   # whole seconds or milliseconds
        assert int(stopped) - 1 <= applied_seconds <= ready + 1, (version, applied, stopped, ready)
    new_server_log = "".join(manager.runs[-1])
    assert "gatehouse listening" in new_server_log and "migrated database" not in new_server_log, new_server_log

    # 4. No lost data: every account, session and refresh family from before, and every session the load made.
    listing = as_gatehouse("user", "list")
    assert listing.returncode == 0 and all(email in listing.stdout for email in USERS), listing.stdout + listing.stderr
    for email, session in sessions_before + [(USERS[0], kept_session)] + load.sessions:
        page = account_page(base, session)
        assert page.status_code == 200, (email, page.status_code, page.headers.get("Location"))
    refreshed = requests.post(base + "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": kept["refresh_token"]},
                              auth=(CLIENT_ID, CLIENT_SECRET), timeout=10)
    assert refreshed.status_code == 200, refreshed.text
    for email, token in load.tokens.items():
        answer = requests.post(base + "/oauth/token", data={"grant_type": "refresh_token", "refresh_token": token},
                               auth=(CLIENT_ID, CLIENT_SECRET), timeout=10)
        assert answer.status_code == 200, (email, answer.text)
        userinfo = requests.get(base + "/oauth/userinfo", headers={"Authorization": "Bearer " + answer.json()["access_token"]},
                                timeout=10)
        assert userinfo.status_code == 200 and userinfo.json()["sub"], (email, userinfo.text)

    # 5. Failures only in the restart window, and a bounded number of them.
    window = ready - stopping
    assert window < WINDOW_LIMIT_SECONDS, window
    failures = [r for r in load.records if r[3] != "ok"]
    outside = [r for r in failures if r[0] < stopping - MARGIN_SECONDS or r[1] > ready + MARGIN_SECONDS]
    assert not outside, outside
    # No refresh family was lost: a failure is a refused connection or a 503, never a refused grant.
    assert not [r for r in failures if r[3] in ("http 400", "http 401")], failures
    ok_during = [r for r in load.records if r[3] == "ok" and upgrade_started <= r[0] <= upgrade_ended]
    before = [r for r in load.records if r[3] == "ok" and r[1] < upgrade_started]
    after = [r for r in load.records if r[3] == "ok" and r[0] > ready]
    assert before and after, "the load ran before and after the upgrade"
    summary = {
        "previous_release": old_version + " " + metadata()["PREVIOUS_RELEASE_COMMIT"].strip('"'),
        "new_release": new_version,
        "old_package_build_seconds_when_cached": old_build_seconds,
        "requests": len(load.records), "ok": len(load.records) - len(failures), "failures": len(failures),
        "failures_by_outcome": {o: sum(1 for r in failures if r[3] == o) for o in sorted({r[3] for r in failures})},
        "ok_while_dpkg_ran": len(ok_during),
        "restart_window_seconds": round(window, 3),
        "stop_seconds": round(stopped - stopping, 3),
        "dpkg_seconds": round(upgrade_ended - upgrade_started, 3),
        "migrations_applied": [v for v, _ in new_rows],
        "sessions_checked": len(sessions_before) + 1 + len(load.sessions),
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "upgrade-under-load.json").write_text(json.dumps(summary, indent=2) + "\n")
    print("upgrade under load:", json.dumps(summary))
    # The bound: each worker fails at most once per retry interval while nothing answers (plus the requests cut at
    # the stop), and every worker is served again after READY=1.
    assert len(failures) <= WORKERS * ((window + 2 * MARGIN_SECONDS) / RETRY_SECONDS + 3), summary
    for email in USERS:
        assert [r for r in after if r[4] == email], f"{email}'s client was served again after the upgrade"
