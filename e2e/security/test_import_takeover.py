"""`gatehouse user import` never takes over an account created or proven in Gatehouse: a row matching one is a
conflict reported as FILE:LINE (nothing written) unless the operator passes --merge-existing; then an unproven
account is claimed as a proof of its address would claim it (the squatter's session ends, their password goes) and
a proven one keeps its password and its verified flag. The operator's real CLI, the real sign-up and sign-in forms
in headless Chromium."""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "browser"))
from conftest import BINARY  # noqa: E402
from test_accounts import click_and_wait, fill, sign_in, submit  # noqa: E402



def bcrypt(password):
    """A bcrypt hash made by ruby-bcrypt (what Devise and has_secure_password store)."""
    return subprocess.run(["ruby", "-rbcrypt", "-e", "print BCrypt::Password.create(ARGV[0], cost: 4)", password],
                          capture_output=True, text=True, check=True).stdout


def cli(server, *args):
    env = dict(os.environ, GATEHOUSE_DATABASE_URL=f"sqlite://{server.dir}/gatehouse.sqlite", GATEHOUSE_DEMO="0")
    return subprocess.run([str(BINARY), *args], env=env, capture_output=True, text=True, timeout=60)


def sign_up(driver, base, email, password):
    driver.get(base + "/sign-up")
    fill(driver, email=email, password=password)
    submit(driver, "/sign-up")
    assert driver.current_url == base + "/sign-up/check-email"


def verify(driver, server, email, password):
    driver.get(server.wait_for_link(email, "/email/verify/"))
    fill(driver, password=password)
    click_and_wait(driver, driver.find_element("css selector", 'form[action^="/email/verify/"] button[type=submit]'))


def write(server, name, rows):
    path = os.path.join(server.dir, name)
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return path


def row_of(db, email):
    return db.execute("SELECT email_verified, external_id, password_hash IS NOT NULL FROM users WHERE email = ?",
                      (email,)).fetchone()


def test_a_squatters_account_is_not_merged_unless_asked_and_then_is_claimed(gatehouse, browsers):
    squatter = browsers()
    sign_up(squatter, gatehouse.url, "victim@example.com", "squatter password 1")
    sign_in(squatter, gatehouse.url, "victim@example.com", "squatter password 1")
    assert squatter.current_url == gatehouse.url + "/account"
    db = sqlite3.connect(os.path.join(gatehouse.dir, "gatehouse.sqlite"))

    # The victim's row in the product's export: an OmniAuth user, verified there, no password.
    path = write(gatehouse, "users.jsonl", [{"email": "other@example.com", "external_id": "6"},
                                            {"email": "victim@example.com", "external_id": "7", "verified": True}])
    for args in [(), ("--dry-run",)]:
        refused = cli(gatehouse, "user", "import", path, *args)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert f"{path}:2: account victim@example.com was created in Gatehouse" in refused.stderr, refused.stderr
        assert "--merge-existing" in refused.stderr
    assert row_of(db, "victim@example.com") == (0, None, 1), "nothing of the row was written"
    assert db.execute("SELECT COUNT(*) FROM users WHERE email = 'other@example.com'").fetchone()[0] == 0
    squatter.get(gatehouse.url + "/account")
    assert squatter.current_url == gatehouse.url + "/account", "the refusal changed nothing"

    merged = cli(gatehouse, "user", "import", path, "--merge-existing")
    assert merged.returncode == 0 and "created 1, updated 1 (1 claimed)" in merged.stdout, merged.stdout + merged.stderr
    assert row_of(db, "victim@example.com") == (1, "7", 0), "verified, the victim's external id, the creator's password cleared"
    squatter.get(gatehouse.url + "/account")
    assert "/sign-in" in squatter.current_url, "the squatter's session ended"
    again = browsers()
    sign_in(again, gatehouse.url, "victim@example.com", "squatter password 1")
    assert "/account" not in again.current_url, "the squatter's password no longer signs in"
    audit = [r[0] for r in db.execute("SELECT details FROM audit_log WHERE event_type = 'account.claimed'")]
    assert len(audit) == 1 and '"via":"import"' in audit[0].replace(" ", ""), audit

    # The file again is an ordinary re-import now (the account came under the import).
    rerun = cli(gatehouse, "user", "import", path)
    assert rerun.returncode == 0 and "created 0, updated 2" in rerun.stdout, rerun.stdout + rerun.stderr


def test_a_row_never_replaces_the_password_of_an_owner_proven_in_gatehouse(gatehouse, browsers):
    owner = browsers()
    sign_up(owner, gatehouse.url, "owner@example.com", "the owners password")
    verify(owner, gatehouse, "owner@example.com", "the owners password")
    db = sqlite3.connect(os.path.join(gatehouse.dir, "gatehouse.sqlite"))
    assert row_of(db, "owner@example.com")[0] == 1
    # A stale or forged row: unverified, with a hash whose password someone else knows.
    path = write(gatehouse, "owner.jsonl", [{"email": "owner@example.com", "external_id": "9", "verified": False,
                                             "password_hash": bcrypt("the stale rows password")}])
    refused = cli(gatehouse, "user", "import", path)
    assert refused.returncode == 1 and f"{path}:1: account owner@example.com was created in Gatehouse" in refused.stderr

    merged = cli(gatehouse, "user", "import", path, "--merge-existing")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert row_of(db, "owner@example.com") == (1, "9", 1), "still verified, the external id added"
    sign_in(owner, gatehouse.url, "owner@example.com", "the owners password")
    assert owner.current_url == gatehouse.url + "/account", "the owner's password still signs in"
    # Later imports (now without the flag) still never touch the proven account's hash.
    rerun = cli(gatehouse, "user", "import", path)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    stranger = browsers()
    sign_in(stranger, gatehouse.url, "owner@example.com", "the stale rows password")
    assert "/account" not in stranger.current_url
    sign_in(stranger, gatehouse.url, "owner@example.com", "the owners password")
    assert stranger.current_url == gatehouse.url + "/account"
