"""`make package` builds a Debian package that installs, runs and is removed cleanly.

Builds dist/gatehouse_*.deb (reusing a fresh .build/release), installs it with dpkg -i on this machine
(root), starts the systemd unit's ExecStart command line as the `gatehouse` user with the unit's
EnvironmentFile (no systemd here), checks /readyz, re-installs it (the upgrade path runs
`gatehouse migrate`), removes it and checks the data and the secret key are kept.

Runs by default. Opt out only explicitly: GATEHOUSE_SKIP_PACKAGE_TEST=1 (the skip reason says so).
"""
import os
import pathlib
import pwd
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import ROOT, free_port  # noqa: E402

UNIT = pathlib.Path("/lib/systemd/system/gatehouse.service")
DATA = pathlib.Path("/var/lib/gatehouse")
ETC = pathlib.Path("/etc/gatehouse")

pytestmark = pytest.mark.skipif(os.environ.get("GATEHOUSE_SKIP_PACKAGE_TEST") == "1",
                                reason="GATEHOUSE_SKIP_PACKAGE_TEST=1: the Debian package test was switched off explicitly")


def run(*args, check=True, **kwargs):
    return subprocess.run(list(args), check=check, capture_output=True, text=True, **kwargs)


def installed():
    return run("dpkg-query", "-W", "-f=${Status}", "gatehouse", check=False).stdout.startswith("install ok installed")


def user_exists():
    try:
        pwd.getpwnam("gatehouse")
        return True
    except KeyError:
        return False


def unit_setting(name):
    values = [line.split("=", 1)[1].strip() for line in UNIT.read_text().splitlines() if line.startswith(name + "=")]
    assert values, f"{name} missing from the unit"
    return values[-1]


def read_env_file(path):
    env = {}
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, value = line.split("=", 1)
            env[key] = value
    return env


def test_package_installs_serves_upgrades_and_removes_keeping_data():
    assert os.geteuid() == 0, "the package test installs with dpkg -i and needs root"
    if installed() or DATA.exists() or ETC.exists():
        pytest.fail("a gatehouse package or its directories already exist on this machine; "
                    "remove them (dpkg --purge gatehouse; rm -rf /var/lib/gatehouse /etc/gatehouse) or set GATEHOUSE_SKIP_PACKAGE_TEST=1")
    user_before = user_exists()
    built = subprocess.run([str(ROOT / "scripts" / "package")], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout + built.stderr
    deb = re.search(r"package: (dist/\S+\.deb)", built.stdout).group(1)
    deb = str(ROOT / deb)
    depends = run("dpkg-deb", "-f", deb, "Depends").stdout
    for library in ("libmicrohttpd", "libsodium", "libsqlite3", "libpq5", "libcurl", "libssl", "libc6"):
        assert library in depends, f"{library} not in Depends: {depends}"
    assert "swift" not in depends.lower(), "the Swift runtime is linked statically"
    assert "init-system-helpers" in depends, "deb-systemd-helper/-invoke in the maintainer scripts"
    # lintian ran inside scripts/package and failed the build on any error, warning or info tag.
    assert "package: lintian clean" in built.stdout, built.stdout
    metadata = dict(line.split("=", 1) for line in (ROOT / "packaging" / "metadata").read_text().splitlines()
                    if "=" in line and not line.startswith("#"))
    assert run("dpkg-deb", "-f", deb, "Maintainer").stdout.strip() == metadata["MAINTAINER"].strip('"')
    assert run("dpkg-deb", "-f", deb, "Homepage").stdout.strip() == metadata["HOMEPAGE"].strip('"')
    contents = run("dpkg-deb", "-c", deb).stdout
    for path in ("./usr/share/doc/gatehouse/copyright", "./usr/share/doc/gatehouse/changelog.gz",
                 "./usr/share/man/man1/gatehouse.1.gz", "./usr/share/man/man1/gatehouse-serve.1.gz",
                 "./usr/share/man/man1/gatehouse-user.1.gz", "./usr/share/man/man1/gatehouse-client.1.gz"):
        assert path in contents, f"{path} missing from the package"
    # The release tarball beside it: binary, unit, man pages, docs, licence.
    tarball = re.search(r"package: (dist/\S+\.tar\.gz)", built.stdout).group(1)
    listing = run("tar", "-tzf", str(ROOT / tarball)).stdout.split()
    version = run("dpkg-deb", "-f", deb, "Version").stdout.strip()
    for member in ("bin/gatehouse", "systemd/gatehouse.service", "man/man1/gatehouse-serve.1", "doc/packaging.md", "LICENSE"):
        assert f"gatehouse-{version}/{member}" in listing, f"{member} missing from {tarball}"

    server = None
    try:
        run("dpkg", "-i", deb)
        assert installed()
        assert user_exists()
        gatehouse = pwd.getpwnam("gatehouse")
        assert gatehouse.pw_shell.endswith("nologin")
        assert "libswiftCore" not in run("ldd", "/usr/bin/gatehouse").stdout
        env_path = unit_setting("EnvironmentFile")
        assert env_path == str(ETC / "gatehouse.env")
        stat = os.stat(env_path)
        assert oct(stat.st_mode & 0o777) == "0o640" and stat.st_uid == 0 and stat.st_gid == gatehouse.pw_gid
        env_file = read_env_file(env_path)
        assert len(env_file["GATEHOUSE_SECRET_KEY"]) >= 43
        assert env_file["GATEHOUSE_DATABASE_URL"] == f"sqlite://{DATA}/gatehouse.sqlite"
        assert os.stat(DATA).st_uid == gatehouse.pw_uid
        assert unit_setting("User") == "gatehouse" and unit_setting("NoNewPrivileges") == "yes"
        assert unit_setting("ProtectSystem") == "strict"
        assert unit_setting("Type") == "notify"
        copyright = pathlib.Path("/usr/share/doc/gatehouse/copyright").read_text()
        assert "License: Apache-2.0" in copyright and "/usr/share/common-licenses/Apache-2.0" in copyright
        # The man page is the CLI's own help: every option of `serve --help` is in it.
        page = run("man", "-P", "cat", "gatehouse-serve", env={**os.environ, "MANWIDTH": "200"}, check=False).stdout
        if page:   # man-db present (it is on Debian); the raw page is checked either way
            assert "GATEHOUSE_LOG_LEVEL" in page
        raw = run("zcat", "/usr/share/man/man1/gatehouse-serve.1.gz").stdout
        assert raw.startswith(".TH GATEHOUSE-SERVE 1") and "GATEHOUSE_LOG_LEVEL" in raw and "NOTIFY_SOCKET" in raw

        # The unit's ExecStart, as the gatehouse user, with its EnvironmentFile (and a free port for this test).
        port = free_port()
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **env_file,
               "GATEHOUSE_LISTEN": f"127.0.0.1:{port}", "GATEHOUSE_PUBLIC_URL": f"http://127.0.0.1:{port}"}
        command = shlex.split(unit_setting("ExecStart"))
        # Started directly as the user (as systemd does), so SIGTERM reaches gatehouse itself.
        server = subprocess.Popen(command, user="gatehouse", group="gatehouse", extra_groups=[], env=env, cwd="/",
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ready = None
        deadline = time.time() + 30
        while time.time() < deadline and server.poll() is None:
            try:
                ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=1)
                if ready.status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.1)
        assert ready is not None and ready.status_code == 200, server.stdout.read() if server.poll() is not None else "no answer"
        assert (DATA / "gatehouse.sqlite").exists()
        assert os.stat(DATA / "gatehouse.sqlite").st_uid == gatehouse.pw_uid
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0
        server = None

        # Upgrade (the same version again): postinst runs `gatehouse migrate`, and keeps the secret key.
        reinstall = run("dpkg", "-i", deb)
        assert reinstall.returncode == 0
        assert read_env_file(env_path)["GATEHOUSE_SECRET_KEY"] == env_file["GATEHOUSE_SECRET_KEY"]

        run("dpkg", "-r", "gatehouse")
        assert not installed()
        assert not pathlib.Path("/usr/bin/gatehouse").exists()
        assert (DATA / "gatehouse.sqlite").exists(), "removal keeps the data"
        assert read_env_file(env_path)["GATEHOUSE_SECRET_KEY"] == env_file["GATEHOUSE_SECRET_KEY"], "and the key"
    finally:
        if server is not None and server.poll() is None:
            server.kill()
        # Leave the machine as it was.
        run("dpkg", "--purge", "gatehouse", check=False)
        run("rm", "-rf", str(DATA), str(ETC), check=False)
        if not user_before and user_exists():
            run("deluser", "--system", "--quiet", "gatehouse", check=False)
            run("delgroup", "--system", "--quiet", "gatehouse", check=False)
