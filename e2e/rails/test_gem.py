"""gatehouse-rails as a package: `gem build` from the repository, its metadata (Apache-2.0, runtime dependencies that
Debian packages), its own unit suite, and both install routes of the guide (docs/integrations/rails.md §3) run from
a clean checkout: the Debian route's commands as written, and Bundler on the guide's Gemfile lines."""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from rails_app import GEM_ROOT, gem_build  # noqa: E402
from conftest import ROOT  # noqa: E402

GUIDE = ROOT / "docs" / "integrations" / "rails.md"
VERSION = re.search(r'VERSION = "([^"]+)"', (GEM_ROOT / "lib/gatehouse/rails/version.rb").read_text())[1]


def guide_block(marker):
    return re.search(rf"<!-- {marker} -->\n```\w*\n(.*?)```\n", GUIDE.read_text(), re.S)[1]


@pytest.fixture(scope="module")
def checkout():
    """A clean clone of this commit's tree plus the working changes under test (what a user gets from git)."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix="gatehouse-clone-"))
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(directory / "gatehouse")], check=True)
    clone = directory / "gatehouse"
    # The working tree's gem and guide (uncommitted edits included), committed in the clone so Bundler's git source
    # sees them.
    subprocess.run(["rm", "-rf", str(clone / "Integrations" / "Rails")], check=True)
    subprocess.run(["cp", "-r", str(GEM_ROOT), str(clone / "Integrations" / "Rails")], check=True)
    subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q",
                    "--allow-empty", "-m", "working tree"], check=True)
    yield clone
    subprocess.run(["rm", "-rf", str(directory)], check=True)


def gem_spec(gem, field):
    return subprocess.run(["gem", "spec", str(gem), field], check=True, capture_output=True, text=True).stdout


def test_the_gem_builds_with_its_licence_and_only_dependencies_debian_packages(tmp_path):
    gem = gem_build(tmp_path)
    assert "Apache-2.0" in gem_spec(gem, "license")
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    names = set(re.findall(r"^- !ruby/object:Gem::Dependency\n  name: (\S+)", gem_spec(gem, "dependencies"), re.M))
    assert names == {"omniauth", "openid_connect", "jwt", "railties"}, names
    for name in names:
        # Installed here by apt (scripts/bootstrap), as RubyGems sees Debian's packages.
        where = subprocess.run(["gem", "contents", name], capture_output=True, text=True).stdout
        assert "/usr/share/rubygems-integration/" in where or "/usr/lib/ruby/vendor_ruby" in where, (name, where[:200])
    files = subprocess.run(["tar", "-tf", str(gem)], capture_output=True, check=True, text=True).stdout.split()
    assert {"metadata.gz", "data.tar.gz"} <= set(files), files


def test_the_gems_own_suite_passes():
    result = subprocess.run(["ruby", "-Ilib", "test/verification_test.rb"], cwd=GEM_ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\d+ runs, \d+ assertions, 0 failures, 0 errors, 0 skips", result.stdout), result.stdout


def test_the_debian_route_installs_from_a_clean_checkout_without_the_network(checkout, tmp_path):
    lines = guide_block("debian-route").splitlines()
    assert lines[0].startswith("apt-get install ") and f"gatehouse-rails-{VERSION}.gem" in lines[1]
    env = {**os.environ, "GEM_HOME": str(tmp_path / "gems"), "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    subprocess.run(["bash", "-euc", lines[1]], cwd=checkout, env=env, check=True, capture_output=True, text=True, timeout=120)
    loaded = subprocess.run(["ruby", "-e", 'require "action_controller/railtie"; require "gatehouse-rails"; '
                             'puts Gatehouse::Rails::VERSION, $LOADED_FEATURES.grep(%r{gatehouse/rails\\.rb})'],
                            env=env, capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    version, path = loaded.stdout.split()
    assert version == VERSION and path.startswith(str(tmp_path / "gems")), loaded.stdout


def test_the_bundler_route_resolves_the_guides_gemfile_lines(checkout, tmp_path):
    lines = guide_block("gemfile")
    # Only two substitutions: a clean clone for the repository URL, and Debian's name for the upstream strategy gem
    # (the only copy installed here; both `require "omniauth_openid_connect"`).
    lines = re.sub(r'^gatehouse = "[^"]+"', f'gatehouse = "{checkout}"', lines, flags=re.M)
    lines = lines.replace('gem "omniauth_openid_connect", ">= 0.4"', 'gem "gitlab-omniauth-openid-connect"')
    assert f'gatehouse = "{checkout}"' in lines and "gitlab-omniauth-openid-connect" in lines
    # The app's existing Gemfile (Rails 6.1 on Ruby 3.1 names net-smtp itself), then the guide's lines.
    (tmp_path / "Gemfile").write_text('source "https://rubygems.org"\ngem "rails", "~> 6.1"\ngem "net-smtp", require: false\n' + lines)
    env = {**os.environ, "GEM_HOME": str(tmp_path / "gems"), "HOME": str(tmp_path), "BUNDLE_GEMFILE": str(tmp_path / "Gemfile")}
    install = subprocess.run(["bundle", "install", "--local"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    assert re.search(rf"Using gatehouse-rails {re.escape(VERSION)} from {re.escape(str(checkout))}", install.stdout), install.stdout
    loaded = subprocess.run(["bundle", "exec", "ruby", "-e", 'require "action_controller/railtie"; require "gatehouse-rails"; '
                             'puts $LOADED_FEATURES.grep(%r{gatehouse/rails\\.rb})'],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    assert "/bundler/gems/" in loaded.stdout, loaded.stdout
