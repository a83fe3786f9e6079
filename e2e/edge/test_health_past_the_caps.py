"""On the real `gatehouse serve`: while slow clients hold every connection slot, `/healthz`
and `/readyz` (served from `http.health_check_connections`) still answer 200 promptly, an ordinary request
past the caps gets 503 at once, and garbage 20 KiB into a request head gets 400 at once."""
import os
import socket
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import GatehouseProcess  # noqa: E402

CAP = 4


@pytest.fixture(scope="module")
def server():
    process = GatehouseProcess(config={"http": {"max_connections": CAP, "max_connections_per_ip": CAP,
                                                "header_timeout_seconds": 30, "connection_timeout_seconds": 30,
                                                "health_check_connections": 2}})
    yield process
    process.stop()


def exchange(port, head, timeout=3):
    """Sends `head`, returns (status, seconds until the status line)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        started = time.monotonic()
        s.sendall(head)
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        return int(data.split(b" ")[1]) if data.startswith(b"HTTP/1.1 ") else None, time.monotonic() - started


def test_health_checks_answer_while_every_slot_is_held(server):
    # The GatehouseProcess's own start-up check is done; hold every slot with heads that never end.
    holders = []
    # The start-up probe's connection (and the previous module's) must be gone first: a slot still counted
    # for it would push the last holder into the health-check reserve, and then free up under the test.
    time.sleep(0.5)
    try:
        for _ in range(CAP):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(b"GET /sign-in HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            holders.append(s)
        time.sleep(0.3)
        for s in holders:   # every holder still holds its slot: nothing was answered or closed
            s.setblocking(False)
            try:
                data = s.recv(1)
            except BlockingIOError:
                data = None
            assert data is None, f"a holder was answered or closed ({data!r}): the slots were not all held"
            s.setblocking(True)
        for path in ("/healthz", "/readyz", "/healthz"):
            status, seconds = exchange(server.port, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert status == 200 and seconds < 1.0, (path, status, seconds)
        status, seconds = exchange(server.port, b"GET /sign-in HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status == 503 and seconds < 1.0, (status, seconds)
    finally:
        for s in holders:
            s.close()


def test_garbage_late_in_a_head_gets_400_at_once(server):
    time.sleep(0.3)   # the previous test's holders are gone
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 20_000 + b"\x00\x01\xff\r\n\r\n"
    status, seconds = exchange(server.port, head)
    assert status == 400 and seconds < 1.0, (status, seconds)
