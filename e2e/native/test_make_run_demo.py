"""`make run`'s demo registers `demo-native` for real: the server is started exactly as `make run` starts it (the
command read from `make -n run`, on the debug binary), then the hybrid demo's first steps run against it."""
import base64
import hashlib
import os
import re
import shlex
import subprocess

import requests

from conftest import GatehouseProcess, ROOT


def make_run_environment():
    """The environment assignments `make run` puts before `gatehouse serve` (e.g. GATEHOUSE_DEMO=1)."""
    lines = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.splitlines()
    serve = next(line for line in lines if re.search(r"gatehouse serve\b", line))
    words = shlex.split(serve.replace("$${", "${"))
    env = {}
    for word in words:
        if "=" in word and not word.startswith("-"):
            name, value = word.split("=", 1)
            # ${GATEHOUSE_DEMO:-1}: the default applies (tests never inherit the caller's setting).
            value = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)
            env[name] = value
        elif word.endswith("gatehouse"):
            break
    assert "serve" in words and not any(w.startswith("--config") for w in words), serve
    return env


def test_make_run_registers_the_demo_native_app():
    env = make_run_environment()
    assert env.get("GATEHOUSE_DEMO") == "1"
    gatehouse = GatehouseProcess(extra_env=env)
    try:
        challenge = base64.urlsafe_b64encode(hashlib.sha256(os.urandom(32)).digest()).rstrip(b"=").decode()
        start = requests.get(f"{gatehouse.url}/native/start?provider=google&app=demo-native&challenge={challenge}", timeout=5)
        assert start.status_code == 200, start.text[:300]
        assert "Gatehouse Demo App asked you to sign in with Google" in start.text
        assert 'name="app" value="demo-native"' in start.text
        # The same app is what native Sign in with Apple and the path configuration serve.
        assert requests.get(gatehouse.url + "/configurations/ios_v1.json", timeout=5).status_code == 200
    finally:
        gatehouse.stop()
