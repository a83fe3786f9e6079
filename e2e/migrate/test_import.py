"""Devise users move in: hashes made by ruby-bcrypt and by Devise itself (with a pepper) are imported with
`gatehouse user import`, then the users sign in through the real sign-in form with their old passwords
(and are rehashed to Argon2id), and an old Apple identity signs in through the simulated Apple (demo mode)."""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys

import pytest
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "browser"))
from conftest import BINARY, GatehouseProcess, screenshot  # noqa: E402
from test_accounts import click_and_wait, sign_in  # noqa: E402
from test_providers import provider_sign_in  # noqa: E402

PEPPER = "devise-pepper-0f3c9a"

# Devise's own encryptor (Devise::Encryptor.digest, what `User#password=` calls), with config.pepper,
# and the plain ruby-bcrypt gem (has_secure_password), in all three bcrypt prefixes.
RUBY = r"""
require "json"
require "bcrypt"
require "active_support/core_ext/object/blank"
require "devise/encryptor"
Config = Struct.new(:stretches, :pepper)
devise = Config.new(4, ARGV[0])
out = {
  "devise" => Devise::Encryptor.digest(devise, "devise password 1"),
  "bcrypt_2a" => BCrypt::Password.create("bcrypt password 2", cost: 4).to_s,
  "bcrypt_2b" => BCrypt::Engine.hash_secret("bcrypt password 3", BCrypt::Engine.generate_salt(4).sub("$2a$", "$2b$")),
  "bcrypt_2y" => BCrypt::Engine.hash_secret("bcrypt password 4", BCrypt::Engine.generate_salt(4).sub("$2a$", "$2y$")),
}
raise "not peppered as expected" unless BCrypt::Password.new(out["devise"]) == "devise password 1" + ARGV[0]
puts out.to_json
"""


def simulated_apple_subject(email):
    """The `sub` the provider simulator's Apple gives an email (AppleSimulator.subject(forEmail:))."""
    hexdigest = hashlib.sha256(("apple-sub:" + email.lower()).encode()).hexdigest()
    digits = "".join(str(ord(c) % 10) for c in hexdigest)
    return f"{digits[:6]}.{hexdigest[:32]}.{digits[-4:]}"


def gatehouse_cli(server, *args):
    env = dict(os.environ, GATEHOUSE_DATABASE_URL=f"sqlite://{server.dir}/gatehouse.sqlite", GATEHOUSE_DEMO="0")
    return subprocess.run([str(BINARY), *args], env=env, capture_output=True, text=True, timeout=60)


def start(pepper):
    config = {"passwords": {"bcrypt_pepper": pepper}} if pepper else None
    return GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"}, config=config)


@pytest.fixture
def server():
    process = start(PEPPER)
    yield process
    process.stop()


@pytest.fixture
def plain_server():
    process = start(None)
    yield process
    process.stop()


def write_jsonl(server, rows):
    path = os.path.join(server.dir, "users.jsonl")
    with open(path, "w") as f:
        for row in rows:
            row = dict(row)
            row["external_id"] = row.pop("id")   # the Rails primary key, kept so the app's foreign keys still match
            f.write(json.dumps(row) + "\n")
    return path


def make_hashes():
    return json.loads(subprocess.run(["ruby", "-e", RUBY, PEPPER], capture_output=True, text=True, check=True).stdout)


def expect_old_password_signs_in(server, browsers, db, email, password):
    wrong = browsers()
    sign_in(wrong, server.url, email, password + "x")
    assert "/account" not in wrong.current_url, email
    driver = browsers()
    sign_in(driver, server.url, email, password)
    screenshot(driver, f"import-sign-in-{email.split('@')[0]}")
    assert driver.current_url == server.url + "/account", email
    assert email in driver.page_source
    # The first successful sign-in rehashed the imported bcrypt to Argon2id.
    stored = db.execute("SELECT password_hash FROM users WHERE email = ?", (email,)).fetchone()[0]
    assert stored.startswith("$argon2id$"), (email, stored[:7])


def test_devise_users_with_a_pepper_and_an_apple_identity_sign_in_after_import(server, browsers):
    hashes = make_hashes()
    path = write_jsonl(server, [
        {"id": 101, "email": "Devise.User@Example.com", "name": "Devise User", "confirmed_at": "2022-02-02 10:00:00.123456 UTC",
         "created_at": "2021-01-01 09:00:00 UTC", "encrypted_password": hashes["devise"]},
        # An OmniAuth user (provider/uid as Devise keeps them) with no password.
        {"id": 105, "email": "apple.user@example.com", "name": "Apple User",
         "identities": [{"provider": "apple", "uid": simulated_apple_subject("apple.user@example.com")}]},
    ])
    dry = gatehouse_cli(server, "user", "import", path, "--dry-run")
    assert dry.returncode == 0 and "would create 2, would update 0" in dry.stdout, dry.stdout + dry.stderr
    db = sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 0
    first = gatehouse_cli(server, "user", "import", path)
    assert first.returncode == 0 and "created 2, updated 0" in first.stdout, first.stdout + first.stderr
    # Idempotent: the same file again updates the same accounts.
    again = gatehouse_cli(server, "user", "import", path)
    assert again.returncode == 0 and "created 0, updated 2" in again.stdout, again.stdout + again.stderr
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 2
    assert db.execute("SELECT external_id, email_verified, created_at FROM users WHERE email = 'devise.user@example.com'"
                      ).fetchone() == ("101", 1, 1609491600000)

    expect_old_password_signs_in(server, browsers, db, "devise.user@example.com", "devise password 1")

    # The old Apple identity signs in through the simulated Apple and lands in the imported account.
    driver = browsers()
    provider_sign_in(driver, server.url, "apple", "apple.user@example.com")
    if "/finish" in driver.current_url or driver.current_url.endswith("/callback"):
        click_and_wait(driver, driver.find_element(By.TAG_NAME, "button"))
    screenshot(driver, "import-apple-sign-in")
    assert driver.current_url == server.url + "/account"
    assert "apple.user@example.com" in driver.page_source
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 2


def test_ruby_bcrypt_users_sign_in_after_import(plain_server, browsers):
    hashes = make_hashes()
    passwords = {"two@example.com": ("bcrypt_2a", "bcrypt password 2"), "three@example.com": ("bcrypt_2b", "bcrypt password 3"),
                 "four@example.com": ("bcrypt_2y", "bcrypt password 4")}
    path = write_jsonl(plain_server, [{"id": f"u{i}", "email": email, "password_hash": hashes[key], "verified": True}
                                      for i, (email, (key, _)) in enumerate(passwords.items())])
    result = gatehouse_cli(plain_server, "user", "import", path)
    assert result.returncode == 0 and "created 3, updated 0" in result.stdout, result.stdout + result.stderr
    db = sqlite3.connect(os.path.join(plain_server.dir, "gatehouse.sqlite"))
    for email, (_, password) in passwords.items():
        expect_old_password_signs_in(plain_server, browsers, db, email, password)


def test_bad_rows_are_reported_by_line_and_nothing_is_written(server):
    path = os.path.join(server.dir, "bad.csv")
    with open(path, "w") as f:
        f.write("email,name,password_hash,external_id\n")
        f.write('ok@example.com,"Okay, Fine",,1\n')
        f.write("not-an-email,x,,2\n")
        f.write("third@example.com,y,$2b$04$tooshort,3\n")
    result = gatehouse_cli(server, "user", "import", path)
    assert result.returncode == 1
    assert "bad.csv:3: email not-an-email is not a valid address" in result.stderr
    assert "bad.csv:4: password hash is not bcrypt" in result.stderr
    db = sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 0


def test_batch_size_is_checked_and_each_size_imports_every_row(server):
    """docs/importing-users.md: `gatehouse user import users.jsonl --batch-size 500` for an import beside live
    traffic; a size outside 1-50000 is refused before anything is read or written."""
    rows = [{"id": str(n), "email": f"batch{n}@example.com", "name": f"Batch {n}"} for n in range(1, 6)]
    path = write_jsonl(server, rows)
    db = sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite"))
    for bad in ("0", "50001", "many"):
        refused = gatehouse_cli(server, "user", "import", path, "--batch-size", bad)
        assert refused.returncode == 2, refused
        assert "--batch-size must be a whole number from 1 to 50000" in refused.stderr
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 0
    # Two rows a transaction: five rows are three batches, every one written, with an audit entry each.
    result = gatehouse_cli(server, "user", "import", path, "--batch-size", "2")
    assert result.returncode == 0, result.stderr
    assert "created 5, updated 0" in result.stdout
    assert db.execute("SELECT COUNT(*) FROM users WHERE imported").fetchone()[0] == 5
    assert db.execute("SELECT COUNT(*) FROM audit_log WHERE event_type = 'account.imported'").fetchone()[0] == 5
    # The docs' own line for a serving database: the same file again updates the same five accounts.
    again = gatehouse_cli(server, "user", "import", path, "--batch-size", "500")
    assert again.returncode == 0 and "created 0, updated 5" in again.stdout, again
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 5


def import_rows(count):
    return [{"id": f"f{n}", "email": f"first{n}@example.com", "name": f"First {n}",
             "identities": [{"provider": "github", "uid": f"gh{n}"}]} for n in range(1, count + 1)]


def schema_of_imported_tables(db):
    return db.execute("SELECT type, name, sql FROM sqlite_schema WHERE tbl_name IN ('users', 'external_identities')"
                      " AND sql IS NOT NULL ORDER BY type, name").fetchall()


def test_a_first_import_into_an_empty_database_is_one_transaction(server):
    """docs/importing-users.md: a first import of more than one batch into a database with no accounts goes in
    one transaction, with the indexes built after the rows; the same file again updates in batches."""
    path = write_jsonl(server, import_rows(5001))
    db = sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite"))
    schema = schema_of_imported_tables(db)
    assert any(name == "users_by_external_id" for _, name, _ in schema), schema
    result = gatehouse_cli(server, "user", "import", path)
    assert result.returncode == 0, result.stderr
    assert "created 5001, updated 0 in one transaction (the database had no accounts)" in result.stdout, result.stdout
    assert schema_of_imported_tables(db) == schema
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM external_identities").fetchone()[0] == 5001
    assert db.execute("SELECT COUNT(*) FROM audit_log WHERE event_type = 'account.imported'").fetchone()[0] == 5001
    # The rebuilt unique index still matches by external id: the rerun updates, and says nothing of one transaction.
    again = gatehouse_cli(server, "user", "import", path)
    assert again.returncode == 0 and again.stdout.strip().endswith("created 0, updated 5001"), again.stdout


def test_a_batch_size_keeps_the_batches_on_an_empty_database(server):
    """docs/importing-users.md: `gatehouse user import users.jsonl --batch-size 5000` keeps the batches."""
    path = write_jsonl(server, import_rows(5001))
    result = gatehouse_cli(server, "user", "import", path, "--batch-size", "5000")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("created 5001, updated 0"), result.stdout
    db = sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite"))
    assert db.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 5001
