"""How to try native Apple and Google in demo mode (docs/integrations/hotwire-native.md): the guide's shell lines, as
written, against a demo Gatehouse — each native sign-in answers 200 with Gatehouse's session cookie, and the cookie
is a real session (Gatehouse's /native/session says who is signed in)."""
import pathlib
import re
import subprocess
import tempfile

import requests

from conftest import GatehouseProcess, ROOT

GUIDE = ROOT / "docs" / "integrations" / "hotwire-native.md"


def test_the_guides_demo_lines_sign_in_natively_with_apple_and_google():
    script = re.search(r"<!-- demo-native -->\n```sh\n(.*?)```\n", GUIDE.read_text(), re.S)[1]
    assert script.startswith("GATEHOUSE=http://127.0.0.1:8080\n")
    gatehouse = GatehouseProcess(extra_env={"GATEHOUSE_DEMO": "1"})
    try:
        with tempfile.TemporaryDirectory() as directory:
            run = subprocess.run(["bash", "-euo", "pipefail", "-c", script.replace("http://127.0.0.1:8080", gatehouse.url, 1)],
                                 cwd=directory, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = run.stdout.splitlines()
        statuses = [line for line in lines if line.startswith("HTTP/")]
        assert len(statuses) == 2 and all(" 200" in line for line in statuses), run.stdout
        cookies = [line.split(":", 1)[1].strip().split(";")[0] for line in lines if line.lower().startswith("set-cookie:")]
        sessions = [c for c in cookies if "gatehouse_session=" in c]
        assert len(sessions) == 2, run.stdout
        for cookie, email in zip(sessions, ["ada@example.com", "grace@example.com"]):
            name, value = cookie.split("=", 1)
            status = requests.get(gatehouse.url + "/native/session", cookies={name: value}, timeout=5)
            assert status.status_code == 200 and status.json()["email"] == email, status.text
    finally:
        gatehouse.stop()
