"""bench/scale.sh at a size `make test` can afford: two small SQLite databases, one-second wrk rows.

It checks the script still seeds through `gatehouse user import` and the bulk rows, measures every figure, runs the
writer-hold check (the maintenance purge empties the expired rows, each replayed migration commits), and that its
CSV feeds the markdown report and the SVG plot. The figures themselves are not judged here (BENCHMARKS.md is).
"""
import csv
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, ROOT, free_port  # noqa: E402

SIZES = (100, 200)
REQUESTS = ["userinfo", "introspection", "sign-in page", "account page", "admin search (one match)",
            "admin list (first page)", "refresh", "password sign-in"]


def test_scale_script_small(tmp_path):
    out = tmp_path / "scale.csv"
    env = dict(os.environ, SCALE_SIZES=" ".join(map(str, SIZES)), SCALE_BACKENDS="sqlite", SCALE_BUILD=str(BINARY.parent),
               SCALE_OUT=str(out), SCALE_PORT=str(free_port()), SCALE_BACKUP_PORT=str(free_port()), SCALE_PURGE_ROWS="500", SCALE_REFRESH_TOKENS="3000", SCALE_PROBE_TOKENS="3000",
               SCALE_CEILING_SECONDS="1", WRK_SECONDS="1", WRK_CONNECTIONS="4")
    run = subprocess.run(["bench/scale.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]

    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    values = {(int(r["users"]), r["measure"]): r["value"] for r in rows if r["backend"] == "sqlite"}
    for users in SIZES:
        for request in REQUESTS:
            assert float(values[(users, f"{request} req/s")]) > 0, (users, request)
            assert float(values[(users, f"{request} CPU")]) > 0, (users, request)
        assert float(values[(users, "import rows/s")]) > 0
        assert float(values[(users, "start to ready")]) > 0
        assert float(values[(users, "idle RSS")]) > 1
        assert int(values[(users, "database bytes per user")]) > 100
        assert 0 < float(values[(users, "password sign-in / Argon2id ceiling")]) < 5
        # Ten families per user beside the minted tokens, ten audit rows per user beside the import's own entries.
        assert int(values[(users, "refresh families")]) >= users * 10
        assert int(values[(users, "audit rows")]) >= users * 10
    # The writer-hold check runs at the largest size only: the purge found its expired rows and removed them all.
    assert (SIZES[0], "purge: expired rows before") not in values
    assert int(values[(SIZES[-1], "purge: expired rows before")]) >= 500
    assert int(values[(SIZES[-1], "purge: rows left")]) == 0
    migrations = [m for (u, m) in values if u == SIZES[-1] and m.startswith("migration ")]
    # Eight replayed steps (18 twice, 19, 21, 23's partial index and backfill, 41's empty table and its backfill): the
    # longest transaction, the transactions and the total of each, and for the seven run by `bench online-step` the
    # transactions over 10 ms.
    assert len(migrations) == 31, migrations
    assert {"migration 23 users_not_imported: total", "migration 41 users_email_search backfill: total"} <= set(migrations)
    # The backfills ran through `gatehouse bench online-step`: batches until one changed nothing.
    for backfill in ("23 users_import_origin backfill", "41 users_email_search backfill"):
        assert int(values[(SIZES[-1], f"migration {backfill}: transactions")]) >= 2, backfill
    for phase in ("quiet", "during the purge", "during the migrations"):
        assert float(values[(SIZES[-1], f"writer check: {phase} req/s")]) > 0, phase
    # The online backup under the same probe (bench/backup.sh), and its copy restored and served.
    assert float(values[(SIZES[-1], "backup: seconds")]) > 0
    assert int(values[(SIZES[-1], "backup: bytes")]) > 4096
    for phase in ("quiet", "during the backup"):
        assert float(values[(SIZES[-1], f"backup check: {phase} req/s")]) > 0, phase
        assert values[(SIZES[-1], f"backup check: {phase} non-2xx")] == "0", phase
    assert values[(SIZES[-1], "restore: users in the copy")] == values[(SIZES[-1], "restore: users in the database")]
    assert int(values[(SIZES[-1], "restore: users in the copy")]) >= SIZES[-1]
    assert values[(SIZES[-1], "restore: refresh of a token issued before the copy")] == "200"

    # The report prints one table with a column per size and the largest/smallest ratio.
    assert "| userinfo CPU | µs/req |" in run.stdout
    assert f"| {SIZES[-1]:,} / {SIZES[0]:,} |" in run.stdout

    svg = tmp_path / "scale.svg"
    subprocess.run(["python3", "bench/scale/plot.py", str(out), str(svg)], cwd=ROOT, check=True)
    lines = ET.parse(svg).getroot().findall(".//{http://www.w3.org/2000/svg}polyline")
    assert sorted(line.get("data-request") for line in lines) == sorted(REQUESTS)
    assert all(len(line.get("points").split()) == len(SIZES) for line in lines)
