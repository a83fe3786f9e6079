"""Shared fixtures for the end-to-end tests: a real Gatehouse process and headless Chromium."""
import json
import os
import pathlib
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
BINARY = pathlib.Path(os.environ.get("GATEHOUSE_BINARY", ROOT / ".build" / "debug" / "gatehouse"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GatehouseProcess:
    """A `gatehouse serve` on a free loopback port with its own database; collects its log lines."""

    def __init__(self, extra_env=None, config=None, path_prefix="", port=None):
        self.port = port or free_port()
        # The direct URL, with the path Gatehouse is served under when its public URL has one (`/auth`).
        self.url = f"http://127.0.0.1:{self.port}{path_prefix}"
        self.dir = tempfile.mkdtemp(prefix="gatehouse-e2e-")
        env = dict(os.environ)
        env.update({
            # Tests choose demo mode explicitly (extra_env); never inherit it from the caller's shell.
            "GATEHOUSE_DEMO": "0",
            "GATEHOUSE_LISTEN": f"127.0.0.1:{self.port}",
            "GATEHOUSE_PUBLIC_URL": self.url,
            "GATEHOUSE_DATABASE_URL": f"sqlite://{self.dir}/gatehouse.sqlite",
        })
        env.update(extra_env or {})
        args = [str(BINARY), "serve"]
        if config is not None:
            path = os.path.join(self.dir, "config.json")
            with open(path, "w") as f:
                json.dump(config, f)
            args += ["--config", path]
        self.lines = []
        self._args, self._env = args, env
        self._spawn()

    def _spawn(self):
        self.process = subprocess.Popen(self._args, env=self._env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("gatehouse did not start:\n" + "".join(self.lines))

    def _read(self):
        process = self.process
        for line in process.stdout:
            self.lines.append(line)

    def restart(self):
        """Stops the server and starts it again on the same port, database and configuration."""
        self.stop()
        self._spawn()

    def mails(self, to):
        """Messages the log mailer printed for an address, oldest first."""
        found = []
        for line in list(self.lines):
            if '"mail (log mailer' in line:
                entry = json.loads(line)
                if entry.get("to") == to:
                    found.append(entry)
        return found

    def wait_for_link(self, to, fragment, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for mail in reversed(self.mails(to)):
                match = re.search(r"https?://\S*" + re.escape(fragment) + r"\S*", mail["body"])
                if match:
                    return match.group(0)
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to} with {fragment}")

    def stop(self):
        self.process.terminate()
        try:
            code = self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        assert code == 0, "gatehouse did not exit cleanly:\n" + "".join(self.lines[-400:])


@pytest.fixture
def gatehouse():
    server = GatehouseProcess()
    yield server
    server.stop()


def make_browser(user_agent=None, accept_insecure_certs=False):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"   # never try to download a driver
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,900"):
        options.add_argument(flag)
    if user_agent:
        options.add_argument(f"--user-agent={user_agent}")
    options.accept_insecure_certs = accept_insecure_certs   # a test's throwaway TLS certificate
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(20)
    return driver


@pytest.fixture
def browsers():
    """A factory of independent browsers (separate profiles, so separate cookies); all quit afterwards."""
    made = []

    def factory(user_agent=None):
        driver = make_browser(user_agent)
        made.append(driver)
        return driver

    yield factory
    for driver in made:
        driver.quit()


def screenshot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
