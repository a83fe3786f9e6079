"""Two `gatehouse serve` processes on one fresh PostgreSQL database, for the multi-process tests.

The cluster is the one `make test` starts (URL in GATEHOUSE_TEST_POSTGRES_URL). Without it the
tests skip locally but fail in CI (CI=true), so a pipeline cannot pass by skipping them.
"""
import base64
import concurrent.futures
import hashlib
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.parse

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, ROOT, GatehouseProcess  # noqa: E402

CLIENT_ID = "mp-app"
METRICS_TOKEN = "mp-metrics-" + "0123456789abcdef" * 2
CLIENT_SECRET = "multiprocess-client-secret-0123456789abc"
REDIRECT = "http://127.0.0.1:9/mp/callback"   # nothing listens: the Location header carries the code
PASSWORD = "a long enough password"
# The cheapest Argon2id the config accepts: these tests count sign-ins, not hashing cost.
FAST_PASSWORDS = {"argon2_memory_kib": 8192, "argon2_iterations": 1}


def base_url():
    url = os.environ.get("GATEHOUSE_TEST_POSTGRES_URL", "")
    if not url:
        message = "GATEHOUSE_TEST_POSTGRES_URL is not set (scripts/postgres start; export it from scripts/postgres url)"
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(message + ": the multi-process tests are required in CI", pytrace=False)
        pytest.skip(message)
    return url


def with_database(url, name):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def psql(url, sql):
    return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], check=True, capture_output=True,
                          text=True).stdout.strip()


class Database:
    """A fresh database on the test cluster, dropped afterwards."""

    def __init__(self, prefix="gh_mp"):
        self.admin = base_url()
        self.name = f"{prefix}_{secrets.token_hex(6)}"
        psql(self.admin, f"CREATE DATABASE {self.name}")
        self.url = with_database(self.admin, self.name)

    def query(self, sql):
        return psql(self.url, sql)

    def drop(self):
        try:
            psql(self.admin, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")
        except subprocess.CalledProcessError:
            pass


class Pair:
    """Two processes (a, b) on one database with one secret key and one public URL."""

    def __init__(self, database, config=None, users=("lin@example.com",)):
        self.database = database
        self.env = {
            "GATEHOUSE_DATABASE_URL": database.url + "?pool_size=4&statement_timeout_ms=3000&connect_timeout=2",
            "GATEHOUSE_SECRET_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
            # One issuer for both, as behind a load balancer.
            "GATEHOUSE_PUBLIC_URL": "http://127.0.0.1:18999",
            # /metrics is served on the public port only behind a bearer token.
            "GATEHOUSE_METRICS_TOKEN": METRICS_TOKEN,
        }
        self.config = {
            "access_log": False,
            "metrics": {"bearer_token_env": "GATEHOUSE_METRICS_TOKEN"},
            "passwords": FAST_PASSWORDS,
            "clients": [{"id": CLIENT_ID, "name": "MP App", "type": "confidential", "secret": CLIENT_SECRET,
                         "redirect_uris": [REDIRECT], "grants": ["authorization_code", "refresh_token", "password"],
                         "first_party": True}],
        }
        self.config.update(config or {})
        self.a = GatehouseProcess(extra_env=self.env, config=self.config)
        self.b = GatehouseProcess(extra_env=self.env, config=self.config)
        for email in users:
            self.cli("user", "create", "--email", email, "--password-stdin", "--verified", input=PASSWORD + "\n")

    @property
    def processes(self):
        return [self.a, self.b]

    def cli(self, *args, input=None):
        env = dict(os.environ)
        env.update(self.env)
        config = os.path.join(self.a.dir, "config.json")
        return subprocess.run([str(BINARY), *args, "--config", config], input=input, text=True, env=env, check=True,
                              capture_output=True).stdout

    def stop(self):
        for process in self.processes:
            if process.process.poll() is None:
                process.stop()


def sign_in(base, email, password=PASSWORD, timeout=10):
    """POSTs the sign-in form; returns (status, session cookie or None)."""
    http = requests.Session()
    page = http.get(base + "/sign-in", timeout=timeout)
    token = re.search(r'name="csrf_token" value="([^"]*)"', page.text).group(1)
    response = http.post(base + "/sign-in", data={"csrf_token": token, "email": email, "password": password},
                         allow_redirects=False, timeout=timeout)
    return response.status_code, response.cookies.get("gatehouse_session")


def account_page(base, session, timeout=10):
    return requests.get(base + "/account", cookies={"gatehouse_session": session}, allow_redirects=False, timeout=timeout)


def authorization_code(base, session):
    """Runs /oauth/authorize with a signed-in session (first-party client: no consent); returns (code, verifier)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    response = requests.get(base + "/oauth/authorize", params={
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT, "scope": "openid offline_access",
        "state": secrets.token_urlsafe(8), "code_challenge": challenge, "code_challenge_method": "S256",
    }, cookies={"gatehouse_session": session}, allow_redirects=False, timeout=10)
    assert response.status_code in (302, 303), (response.status_code, response.text[:300])
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(response.headers["Location"]).query)
    return query["code"][0], verifier


def token_request(base, data, timeout=10):
    return requests.post(base + "/oauth/token", data=data, auth=(CLIENT_ID, CLIENT_SECRET), timeout=timeout)


def race(calls):
    """Runs every zero-argument call at once on its own thread; returns their results in order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [pool.submit(call) for call in calls]
        return [future.result() for future in futures]


def postgres_control(action):
    """`scripts/postgres stop|start|status` for the cluster behind GATEHOUSE_TEST_POSTGRES_URL."""
    port = str(urllib.parse.urlsplit(base_url()).port or 5432)
    env = dict(os.environ, GATEHOUSE_PG_PORT=port)
    return subprocess.run([str(ROOT / "scripts" / "postgres"), action], env=env, capture_output=True, text=True)


def wait_until(predicate, timeout, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False
