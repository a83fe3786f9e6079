"""schemathesis against the admin API's own OpenAPI document: every documented operation, generated
valid and invalid inputs, all of schemathesis' checks (no 5xx, status codes, content types and bodies as
documented, negative data rejected). Bounded: 25 examples per operation, a fixed seed."""
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from admin_support import start, token  # noqa: E402


@pytest.fixture
def server():
    process = start()
    yield process
    process.stop()


def test_admin_api_conforms_to_its_openapi_document(server):
    access = token(server).json()["access_token"]
    started = time.time()
    result = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", server.url + "/admin/v1/openapi.json",
         "--url", server.url, "-H", f"Authorization: Bearer {access}",
         "--checks", "all", "--max-examples", "25", "--seed", "16", "--generation-deterministic",
         "--request-timeout", "10", "--no-color"],
        capture_output=True, text=True, timeout=120, cwd=server.dir)   # its cache stays out of the repository
    output = result.stdout + result.stderr
    print(output[-6000:])
    assert result.returncode == 0, output[-6000:]
    assert time.time() - started < 90
