"""`serve --help` names every environment variable the server reads (found in the source, so a new one
cannot be left out), and exit codes are as `gatehouse help` documents them."""
import os
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, ROOT  # noqa: E402

# What `serve` runs: the server library and the CLI files on its path (the client SDK's and the
# `login` command's variables are not the server's).
SERVE_SOURCES = [ROOT / "Sources" / "GatehouseServer", ROOT / "Sources" / "GatehouseCLI" / "ServeCommand.swift",
                 ROOT / "Sources" / "GatehouseCLI" / "SystemdNotifier.swift", ROOT / "Sources" / "GatehouseCLI" / "MallocTuning.swift"]


def read_variables():
    names = set()
    for source in SERVE_SOURCES:
        files = [source] if source.is_file() else source.rglob("*.swift")
        for path in files:
            names.update(re.findall(r'environment\["([A-Z][A-Z0-9_]*)"\]', pathlib.Path(path).read_text()))
    return names


def test_serve_help_lists_every_environment_variable_it_reads():
    names = read_variables()
    assert {"GATEHOUSE_PUBLIC_URL", "GATEHOUSE_SECRET_KEY", "GATEHOUSE_LOG_LEVEL", "NOTIFY_SOCKET"} <= names
    help_text = subprocess.run([str(BINARY), "serve", "--help"], capture_output=True, text=True, check=True).stdout
    missing = sorted(name for name in names if name not in help_text)
    assert not missing, f"serve --help does not mention {missing}"


def run(*args, env=None, stdin=None):
    return subprocess.run([str(BINARY), *args], capture_output=True, text=True, input=stdin, timeout=30,
                          env={**os.environ, **(env or {})})


def test_exit_codes_are_as_documented(tmp_path):
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{tmp_path}/g.sqlite"}
    documented = run("help").stdout
    assert "1  runtime failure" in documented and "2  usage or configuration error" in documented
    assert run("frobnicate").returncode == 2
    assert run("user", "create", "--nope", env=env).returncode == 2
    assert run("user", "disable", "--email", "nobody@example.com", env=env).returncode == 1, "unknown user: runtime failure"
    assert run("session", "revoke", "--email", "nobody@example.com", env=env).returncode == 1
    assert run("client", "show", "--id", "ghost", env=env).returncode == 1
    created = run("user", "create", "--email", "op@example.com", env=env)
    assert created.returncode == 0, created.stderr
    assert run("user", "create", "--email", "op@example.com", env=env).returncode == 1, "email taken: runtime failure"
    assert run("version").returncode == 0


def test_client_create_admin_makes_a_client_that_gets_an_admin_token(tmp_path):
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{tmp_path}/g.sqlite"}
    created = run("client", "create", "--admin", "--name", "Admin", "--id", "ops-admin", env=env)
    assert created.returncode == 0, created.stderr
    secret = re.search(r"client_secret: (\S+)", created.stdout).group(1)
    shown = run("client", "show", "--id", "ops-admin", env=env).stdout
    assert "grants: client_credentials" in shown and "scopes: admin" in shown
    assert run("client", "create", "--admin", "--name", "X", "--grant", "password", env=env).returncode == 2

    from conftest import GatehouseProcess
    import requests
    server = GatehouseProcess(extra_env=env)
    try:
        token = requests.post(server.url + "/oauth/token", data={"grant_type": "client_credentials", "scope": "admin"},
                              auth=("ops-admin", secret), timeout=5)
        assert token.status_code == 200, token.text
        users = requests.get(server.url + "/admin/v1/users", headers={"Authorization": "Bearer " + token.json()["access_token"]}, timeout=5)
        assert users.status_code == 200, users.text
    finally:
        server.stop()
