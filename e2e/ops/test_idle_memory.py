"""Idle memory does not grow with the accounts.

`serve` reads every account once after it starts listening (the bcrypt cost in use, for the password-check dummy):
neither those pages, kept in a reader's page cache (up to 16 MiB), nor the heap they leave free may stay resident.
The target is idle RSS ≤ 32 MB at any size (BENCHMARKS.md, bench/scale.sh); this test compares one server's idle
RSS on an empty database with its idle RSS once the users table is larger than that cache could hold.
"""
import os
import sqlite3
import time

from conftest import GatehouseProcess

USERS = 80_000


def idle_rss_kib(server):
    # The scan and the dummy hash run after the listener is up: give them time, then take the lowest of a few
    # readings (a reading may land on a transient allocation of the log reader).
    time.sleep(3)
    readings = []
    for _ in range(5):
        with open(f"/proc/{server.process.pid}/status") as status:
            readings.append(next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")))
        time.sleep(0.2)
    return min(readings)


def test_idle_rss_does_not_grow_with_the_accounts():
    server = GatehouseProcess()
    try:
        empty = idle_rss_kib(server)
        server.stop()
        path = os.path.join(server.dir, "gatehouse.sqlite")
        with sqlite3.connect(path) as db:
            db.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO users (id, email, display_name, password_hash, email_verified, created_at, updated_at)
                SELECT 'u' || i, 'u' || i || '@memory.example', 'User ' || i || ' ' || hex(randomblob(50)), '$2a$11$' || hex(randomblob(26)), 1, 0, 0 FROM n
                """, (USERS,))
            table_bytes = db.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = 'users'").fetchone()[0]
        # A table the 16 MiB reader cache could not hold whole: kept, its pages alone would be most of it.
        assert table_bytes > 12 * 1024 * 1024, table_bytes
        server._spawn()
        full = idle_rss_kib(server)
        assert full - empty < 3 * 1024, f"idle RSS {empty} KiB empty, {full} KiB with {USERS} accounts ({table_bytes} bytes)"
    finally:
        server.stop()
