"""The systemd units: Type=notify with a watchdog and a reload command, and a `systemd-analyze security`
exposure no worse than the 1.4 the hardened Type=simple units scored (checked offline: this container has
no running systemd)."""
import subprocess

import pytest

from conftest import ROOT

UNITS = [ROOT / "packaging" / "gatehouse.service", ROOT / "deploy" / "gatehouse@.service"]


def settings(path):
    out = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip()
    return out


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_the_unit_waits_for_readiness_pings_a_watchdog_and_reloads_with_sighup(unit):
    values = settings(unit)
    assert values["Type"] == "notify" and values["NotifyAccess"] == "main"
    assert int(values["WatchdogSec"]) > 0
    assert values["ExecReload"] == "/bin/kill -HUP $MAINPID"


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_the_security_exposure_stays_at_1_4_or_better(unit):
    # --threshold is the exposure times ten; above it the command fails.
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=14", str(unit)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert "Overall exposure level" in result.stdout
