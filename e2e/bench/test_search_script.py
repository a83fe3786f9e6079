"""bench/search.sh at a size `make test` can afford: one small SQLite database of shuffled emails, one-second rows.

It checks that the script imports its users, that each of its three searches finds what it says (one account for the
local part and for the whole address, a full first page for the domain) with the build it is given, and that its CSV
holds a row per search. The figures themselves are not judged here (BENCHMARKS.md is).
"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, ROOT, free_port  # noqa: E402


def test_search_script_small(tmp_path):
    out = tmp_path / "search.csv"
    env = dict(os.environ, SEARCH_SIZES="600", SEARCH_OUT=str(out), SEARCH_PORT=str(free_port()), WRK_SECONDS="1",
               WRK_CONNECTIONS="2")
    run = subprocess.run(["bench/search.sh", str(BINARY)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "emails shuffled" in run.stdout

    with open(out, newline="") as handle:
        rows = {r["query"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"local part", "whole address", "domain"}
    assert rows["local part"]["matches"] == "1"
    assert rows["whole address"]["matches"] == "1"
    assert rows["domain"]["matches"] == "50", "the first page of every account"
    for row in rows.values():
        assert row["backend"] == "sqlite" and row["users"] == "600" and row["build"] == str(BINARY)
        assert float(row["req/s"]) > 0 and float(row["cpu_us_per_req"]) > 0


def test_shuffled_users_are_a_permutation():
    run = subprocess.run([sys.executable, "bench/scale/users.py", "1000", "$argon2id$x", "shuffled"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    emails = [r["email"] for r in rows]
    assert len(set(emails)) == 1000 and set(emails) == {f"u{n}@scale.example" for n in range(1, 1001)}
    assert emails[:3] == ["u1@scale.example", "u920@scale.example", "u839@scale.example"], "not creation order"
    assert [r["created_at"] for r in rows] == sorted(r["created_at"] for r in rows)
