"""The Swift package as an app adds it (docs/integrations/swift-package.md): the guide's consumer manifest, written
beside a clean clone of this repository at `../gatehouse`, resolves and builds on Linux, and its program links the SDK.
The Apple-only products (the Hotwire Native component and its hotwire-native-ios dependency) are declared only on
Apple platforms, so nothing is fetched here."""
import json
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GUIDE = ROOT / "docs" / "integrations" / "swift-package.md"
PROGRAM = """import GatehouseClient

let error = GatehouseSignInError(code: "account_exists", description: "An account with this email exists.")
print(GatehouseSDKVersion.current, error.code, error.userMessage)
"""


def manifest():
    return re.search(r"<!-- consumer-manifest -->\n```swift\n(.*?)```\n", GUIDE.read_text(), re.S)[1]


@pytest.fixture(scope="module")
def layout():
    directory = pathlib.Path(tempfile.mkdtemp(prefix="gatehouse-swiftpm-"))
    clone = directory / "gatehouse"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
    # The working tree's package files on top of the last commit (uncommitted edits are what is under test).
    for path in ["Package.swift", "Sources/GatehouseClient", "Sources/GatehouseClientApple", "Integrations/HotwireNative"]:
        target = clone / path
        if target.is_dir():
            shutil.rmtree(target)
        source = ROOT / path
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    app = directory / "app"
    (app / "Sources" / "MyApp").mkdir(parents=True)
    (app / "Package.swift").write_text(manifest())
    (app / "Sources" / "MyApp" / "main.swift").write_text(PROGRAM)
    yield clone, app
    shutil.rmtree(directory, ignore_errors=True)


def test_the_guides_manifest_names_no_parent_directories_but_its_sibling():
    text = manifest()
    assert '.package(path: "../gatehouse")' in text and "../.." not in text
    assert ".iOS(.v15)" in text
    assert ".iOS(.v15)" in (ROOT / "Package.swift").read_text(), "one minimum iOS version everywhere"
    assert "../.." not in (ROOT / "Package.swift").read_text()
    assert not (ROOT / "Integrations" / "HotwireNative" / "Package.swift").exists(), "no second manifest with ../.."


def test_the_version_is_gatehouses_release():
    sdk = re.search(r'current = "([^"]+)"', (ROOT / "Sources/GatehouseClient/NativeSignIn/GatehouseSDKVersion.swift").read_text())[1]
    server = re.search(r'static let version = "([^"]+)"', (ROOT / "Sources/GatehouseServer/Operations/ServerMetrics.swift").read_text())[1]
    assert sdk == server
    assert f'from: "{sdk}"' in GUIDE.read_text()


def test_a_clean_checkout_resolves_and_builds_by_path(layout):
    clone, app = layout
    resolved = subprocess.run(["swift", "package", "show-dependencies", "--format", "json"], cwd=app, capture_output=True,
                              text=True, timeout=600)
    assert resolved.returncode == 0, resolved.stderr
    graph = json.loads(resolved.stdout)
    [gatehouse] = graph["dependencies"]
    assert gatehouse["identity"] == "gatehouse" and gatehouse["url"] == str(clone), gatehouse
    assert gatehouse["dependencies"] == [], "no Apple-only dependency (hotwire-native-ios) on Linux"
    built = subprocess.run(["swift", "build", "--product", "MyApp"], cwd=app, capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # Only the SDK was compiled: no server target, no C library.
    assert "Compiling GatehouseClient" in built.stdout and "GatehouseServer" not in built.stdout and "CMicroHTTPD" not in built.stdout
    run = subprocess.run([str(app / ".build" / "debug" / "MyApp")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    version = re.search(r'current = "([^"]+)"', (ROOT / "Sources/GatehouseClient/NativeSignIn/GatehouseSDKVersion.swift").read_text())[1]
    assert run.stdout.strip() == f"{version} account_exists An account with this email exists."
