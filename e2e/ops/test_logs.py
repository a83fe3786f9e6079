"""The log format an operator reads: every line JSON with an RFC 3339 UTC timestamp in milliseconds and a
level; GATEHOUSE_LOG_LEVEL drops the less severe lines; a start-up warning for https without SMTP; request ids
taken only from a trusted proxy; an unreachable PostgreSQL named with host, port and libpq's reason."""
import datetime
import json
import os
import re
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, GatehouseProcess, free_port  # noqa: E402

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def parsed(lines):
    out = []
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


def wait_for(predicate, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_every_line_has_a_utc_millisecond_timestamp_and_a_level():
    server = GatehouseProcess()
    try:
        before = datetime.datetime.now(datetime.timezone.utc)
        requests.get(server.url + "/sign-in", timeout=5)
        assert wait_for(lambda: any(e.get("msg") == "request" for e in parsed(server.lines)))
        entries = parsed(server.lines)
        assert any(e["msg"] == "gatehouse listening" for e in entries)
        for entry in entries:
            assert TIMESTAMP.match(entry["time"]), entry
            assert entry["level"] in ("debug", "info", "warn", "error"), entry
        stamp = datetime.datetime.strptime(entries[-1]["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
        assert abs((stamp - before).total_seconds()) < 60, "the timestamp is UTC now"
    finally:
        server.stop()


def test_the_level_setting_drops_less_severe_lines_and_https_without_smtp_warns():
    port = free_port()
    # https is allowed for any host; the process still listens on loopback.
    server = GatehouseProcess(port=port, extra_env={"GATEHOUSE_LOG_LEVEL": "warn",
                                                    "GATEHOUSE_PUBLIC_URL": "https://id.example.test"})
    try:
        requests.get(server.url + "/healthz", timeout=5)
        time.sleep(0.3)
        entries = parsed(server.lines)
        warnings = [e for e in entries if e["level"] == "warn"]
        assert any("no SMTP server is configured" in e["msg"] for e in warnings), entries
        assert not any(e["level"] == "info" and e["msg"] != "request" for e in entries), "info lines are dropped at warn"
    finally:
        server.stop()
    bad = subprocess.run([str(BINARY), "serve"], env={**os.environ, "GATEHOUSE_LOG_LEVEL": "verbose"},
                         capture_output=True, text=True, timeout=20)
    assert bad.returncode == 2 and "GATEHOUSE_LOG_LEVEL" in bad.stderr


def test_request_ids_come_from_a_trusted_proxy_only():
    trusted = GatehouseProcess(config={"http": {"trusted_proxies": ["127.0.0.1/32"]}})
    untrusted = GatehouseProcess()
    try:
        kept = requests.get(trusted.url + "/healthz", headers={"X-Request-Id": "nginx-7f3a"}, timeout=5)
        assert kept.headers["X-Request-Id"] == "nginx-7f3a"
        made = requests.get(untrusted.url + "/healthz", headers={"X-Request-Id": "chosen-by-client"}, timeout=5)
        assert made.headers["X-Request-Id"] != "chosen-by-client" and len(made.headers["X-Request-Id"]) == 24
        assert wait_for(lambda: any(e.get("request_id") == made.headers["X-Request-Id"] for e in parsed(untrusted.lines)))
    finally:
        trusted.stop()
        untrusted.stop()


def test_mail_password_env_reads_the_secret_from_the_environment(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"mail": {"url": "smtp://127.0.0.1:2525", "from": "id@example.com", "username": "gatehouse",
                                           "password_env": "GATEHOUSE_SMTP_PASSWORD", "starttls": "off"}}))
    env = {**os.environ, "GATEHOUSE_DATABASE_URL": f"sqlite://{tmp_path}/g.sqlite"}
    missing = subprocess.run([str(BINARY), "migrate", "--config", str(config)], env=env, capture_output=True, text=True, timeout=20)
    assert missing.returncode == 2 and "mail.password_env" in missing.stderr
    present = subprocess.run([str(BINARY), "migrate", "--config", str(config)],
                             env={**env, "GATEHOUSE_SMTP_PASSWORD": "s3cret-relay-password"}, capture_output=True, text=True, timeout=20)
    assert present.returncode == 0, present.stderr
    assert "s3cret-relay-password" not in present.stdout + present.stderr


def test_an_unreachable_postgresql_is_reported_with_host_port_and_reason():
    port = free_port()   # nothing listens there
    result = subprocess.run([str(BINARY), "serve"], capture_output=True, text=True, timeout=30, env={
        **os.environ, "GATEHOUSE_DATABASE_URL": f"postgres://gatehouse@127.0.0.1:{port}/gatehouse?connect_timeout=2",
        "GATEHOUSE_SECRET_KEY": "A" * 43 + "=", "GATEHOUSE_LISTEN": f"127.0.0.1:{free_port()}"})
    assert result.returncode == 1, result.stderr
    assert "127.0.0.1" in result.stderr and str(port) in result.stderr, result.stderr
    assert "refused" in result.stderr.lower(), "libpq's reason is in the message"
