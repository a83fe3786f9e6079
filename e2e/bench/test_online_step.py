"""`gatehouse bench online-step`: one online migration step run by the migrator's own code on a database, with the
report bench/scale.sh records (transactions, rows, the longest transaction, the whole time)."""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY  # noqa: E402

BACKFILL = "UPDATE demo SET done = 1 WHERE id IN (SELECT id FROM demo WHERE done = 0 ORDER BY id LIMIT ?)"


def cli(path, *args):
    env = dict(os.environ, GATEHOUSE_DATABASE_URL=f"sqlite://{path}", GATEHOUSE_DEMO="0")
    return subprocess.run([str(BINARY), *args], env=env, capture_output=True, text=True, timeout=120)


def seeded(tmp_path, rows=2500):
    path = tmp_path / "steps.sqlite"
    assert cli(path, "migrate").returncode == 0
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE demo (id INTEGER PRIMARY KEY, email TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0)")
        db.executemany("INSERT INTO demo (id, email) VALUES (?, ?)", [(i, f"u{i}@example.com") for i in range(1, rows + 1)])
    return path


def count(path, sql):
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchone()[0]


def test_a_backfill_runs_in_batches_of_at_most_1000_rows_until_none_is_left(tmp_path):
    path = seeded(tmp_path)
    run = cli(path, "bench", "online-step", "backfill", BACKFILL)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["rows"] == 2500
    # 1,000 rows a batch at most, and a last run that changes nothing.
    assert report["transactions"] >= 4
    assert 0 <= report["longest_ms"] <= report["total_ms"]
    assert count(path, "SELECT COUNT(*) FROM demo WHERE done = 0") == 0
    # Nothing left to do: one transaction that changes no row.
    again = json.loads(cli(path, "bench", "online-step", "backfill", BACKFILL).stdout)
    assert (again["transactions"], again["rows"]) == (1, 0)


def test_an_index_step_builds_a_partial_unique_index(tmp_path):
    path = seeded(tmp_path)
    run = cli(path, "bench", "online-step", "index", "demo_by_email", "demo", "email", "--unique", "--where", "done = 0")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["transactions"] == 1   # SQLite builds an index in one write transaction
    sql = count(path, "SELECT sql FROM sqlite_master WHERE name = 'demo_by_email'")
    assert sql == "CREATE UNIQUE INDEX demo_by_email ON demo (email) WHERE done = 0"


def test_usage_errors_and_a_failing_step_change_nothing(tmp_path):
    path = seeded(tmp_path)
    for args in (["online-step"], ["online-step", "index", "a", "demo"], ["online-step", "backfill"],
                 ["online-step", "vacuum", "x"]):
        run = cli(path, "bench", *args)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert "online-step needs" in run.stderr
    # `--using` reaches the statement: SQLite has no index methods, so the build fails and nothing is created.
    run = cli(path, "bench", "online-step", "index", "demo_gin", "demo", "email", "--using", "gin")
    assert run.returncode == 1, run.stdout
    assert count(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'demo_gin'") == 0
    # A statement without the batch-size parameter is refused by SQLite before it changes a row.
    run = cli(path, "bench", "online-step", "backfill", "UPDATE demo SET done = 1")
    assert run.returncode == 1, run.stdout
    assert count(path, "SELECT COUNT(*) FROM demo WHERE done = 1") == 0
