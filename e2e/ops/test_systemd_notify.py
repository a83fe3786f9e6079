"""The sd_notify protocol as systemd speaks it, without systemd: this container has no systemd as PID 1, so
the test plays systemd's side itself. It binds a unix datagram socket, passes it as NOTIFY_SOCKET (with
WATCHDOG_USEC, as a unit with WatchdogSec= does) to a real `gatehouse serve`, and reads what arrives:
READY=1 only once migrations are applied and the port answers, WATCHDOG=1 pings while serving,
RELOADING=1 and READY=1 around a SIGHUP reload, STOPPING=1 at SIGTERM, then a clean exit."""
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, free_port  # noqa: E402


def receive(sock, until, timeout):
    """Messages (as dicts) until one has the key `until`, or the timeout."""
    messages = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        sock.settimeout(max(0.01, deadline - time.time()))
        try:
            data = sock.recv(4096).decode()
        except socket.timeout:
            break
        message = dict(line.split("=", 1) for line in data.split("\n") if "=" in line)
        messages.append(message)
        if until in message:
            break
    return messages


def test_ready_after_migrations_and_listening_then_watchdog_then_stopping():
    directory = tempfile.mkdtemp(prefix="gatehouse-notify-")
    socket_path = os.path.join(directory, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(socket_path)
    port = free_port()
    database = os.path.join(directory, "gatehouse.sqlite")
    env = {**os.environ, "GATEHOUSE_DEMO": "0", "GATEHOUSE_LISTEN": f"127.0.0.1:{port}",
           "GATEHOUSE_PUBLIC_URL": f"http://127.0.0.1:{port}", "GATEHOUSE_DATABASE_URL": f"sqlite://{database}",
           "NOTIFY_SOCKET": socket_path, "WATCHDOG_USEC": "400000"}
    server = subprocess.Popen([str(BINARY), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        messages = receive(sock, "READY", timeout=30)
        assert messages and messages[-1].get("READY") == "1", f"no READY=1: {messages}"
        ready = messages[-1]
        assert ready.get("MAINPID") == str(server.pid)
        assert f"127.0.0.1:{port}" in ready.get("STATUS", "")
        # At READY=1 the port already answers and the schema is migrated: nothing is retried here.
        assert requests.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200
        version = sqlite3.connect(database).execute("SELECT max(version) FROM gatehouse_schema_migrations").fetchone()[0]
        supported = subprocess.run([str(BINARY), "version"], capture_output=True, text=True).stdout
        assert f"(schema {version})" in supported, "READY=1 came before the migrations were applied"

        # The watchdog: pinged at half of WATCHDOG_USEC (0.2 s), so several pings within 1.5 s.
        pings = [m for m in receive(sock, "NEVER", timeout=1.5) if m.get("WATCHDOG") == "1"]
        assert len(pings) >= 4, f"only {len(pings)} watchdog pings in 1.5 s"

        # A reload (ExecReload sends SIGHUP): RELOADING=1 with the monotonic time, then READY=1 again.
        server.send_signal(signal.SIGHUP)
        reload = [m for m in receive(sock, "READY", timeout=15) if "WATCHDOG" not in m]
        assert reload and reload[0].get("RELOADING") == "1" and int(reload[0]["MONOTONIC_USEC"]) > 0, reload
        assert reload[-1].get("READY") == "1"

        server.send_signal(signal.SIGTERM)
        stopping = receive(sock, "STOPPING", timeout=10)
        assert any(m.get("STOPPING") == "1" for m in stopping), f"no STOPPING=1: {stopping}"
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
        sock.close()


def test_without_notify_socket_nothing_is_sent_and_the_server_still_serves():
    port = free_port()
    directory = tempfile.mkdtemp(prefix="gatehouse-notify-")
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env.update({"GATEHOUSE_DEMO": "0", "GATEHOUSE_LISTEN": f"127.0.0.1:{port}", "GATEHOUSE_PUBLIC_URL": f"http://127.0.0.1:{port}",
                "GATEHOUSE_DATABASE_URL": f"sqlite://{directory}/g.sqlite", "WATCHDOG_USEC": "100000"})
    server = subprocess.Popen([str(BINARY), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.1)
        else:
            raise AssertionError("gatehouse did not start")
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
