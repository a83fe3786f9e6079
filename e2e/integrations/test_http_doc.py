"""Runs every `sh` example of docs/integrations/http.md, in order, in one bash, against a live
Gatehouse — so the contract for non-Swift clients cannot drift from what the server does."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import BINARY, ROOT, GatehouseProcess

DOC = ROOT / "docs" / "integrations" / "http.md"
HERE = pathlib.Path(__file__).resolve().parent
EMAIL, PASSWORD = "http-doc@example.com", "a long http doc password"
REDIRECT_URI = "com.example.app:/oauth/callback"


def examples():
    return re.findall(r"^```sh\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


@pytest.fixture
def server():
    process = GatehouseProcess(config={"clients": [
        {"id": "mobile-app", "name": "Mobile App", "type": "public", "redirect_uris": [REDIRECT_URI],
         "grants": ["authorization_code", "refresh_token", "password"], "first_party": True},
    ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{process.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", EMAIL, "--password-stdin", "--verified"],
                   input=PASSWORD + "\n", text=True, env=env, check=True, capture_output=True)
    yield process
    process.stop()


def test_the_doc_has_examples_for_every_part_of_the_contract():
    text = "\n".join(examples())
    for needle in ["openid-configuration", "code_challenge_method=S256", "grant_type=authorization_code",
                   "grant_type=refresh_token", "invalid_grant", "Retry-After", "token_type_hint=refresh_token"]:
        assert needle.lower() in text.lower(), needle


def test_every_example_runs_against_a_live_gatehouse(server, tmp_path):
    blocks = examples()
    assert len(blocks) >= 8
    script = ["set -euo pipefail",
              f'open_in_browser() {{ "{sys.executable}" "{HERE / "browser_stand_in.py"}" "$1"; }}']
    for index, block in enumerate(blocks, 1):
        script.append(f'echo "--- example {index}" >&2')
        script.append(block)
    script.append('echo "ALL EXAMPLES RAN" >&2')
    env = dict(os.environ, GATEHOUSE=server.url, CLIENT_ID="mobile-app", REDIRECT_URI=REDIRECT_URI, EMAIL=EMAIL, PASSWORD=PASSWORD)
    result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"an example failed:\n{result.stderr[-3000:]}\n{result.stdout[-2000:]}"
    assert "ALL EXAMPLES RAN" in result.stderr
