"""Apache's mod_auth_openidc, a real relying party, protects a loopback page and signs a browser in
through Gatehouse (discovery, code + PKCE, RS256 ID token, session in Apache)."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, GatehouseProcess, free_port, screenshot

SECRET = "apache-relying-party-secret-0123456789"
MODULES = "/usr/lib/apache2/modules"


@pytest.fixture
def apache_and_gatehouse():
    apache_port = free_port()
    redirect = f"http://127.0.0.1:{apache_port}/protected/redirect_uri"
    gatehouse = GatehouseProcess(config={"clients": [
        {"id": "apache-rp", "name": "Apache", "type": "confidential", "secret": SECRET, "redirect_uris": [redirect],
         "first_party": True},
    ]})
    env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{gatehouse.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
    subprocess.run([str(BINARY), "user", "create", "--email", "rp@example.com", "--password-stdin",
                    "--verified"],  # unverified accounts get no tokens
                   input="apache sign in password\n", text=True, env=env, check=True, capture_output=True)

    root = pathlib.Path(tempfile.mkdtemp(prefix="gatehouse-apache-"))
    (root / "htdocs" / "protected").mkdir(parents=True)
    (root / "htdocs" / "protected" / "hello.txt").write_text("hello from behind mod_auth_openidc\n")
    (root / "logs").mkdir()
    user = "www-data" if os.geteuid() == 0 else None
    (root / "httpd.conf").write_text(f"""
ServerRoot {root}
ServerName 127.0.0.1
Listen 127.0.0.1:{apache_port}
PidFile {root}/httpd.pid
ErrorLog {root}/logs/error.log
LogLevel warn auth_openidc:info
LoadModule mpm_event_module {MODULES}/mod_mpm_event.so
LoadModule authn_core_module {MODULES}/mod_authn_core.so
LoadModule authz_core_module {MODULES}/mod_authz_core.so
LoadModule authz_user_module {MODULES}/mod_authz_user.so
LoadModule auth_openidc_module {MODULES}/mod_auth_openidc.so
{"User www-data" if user else ""}
{"Group www-data" if user else ""}
DocumentRoot {root}/htdocs
OIDCProviderMetadataURL {gatehouse.url}/.well-known/openid-configuration
OIDCClientID apache-rp
OIDCClientSecret {SECRET}
OIDCRedirectURI {redirect}
OIDCCryptoPassphrase {os.urandom(16).hex()}
OIDCPKCEMethod S256
OIDCScope "openid email"
<Location /protected>
    AuthType openid-connect
    Require valid-user
</Location>
""")
    for path in [root, *root.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    if user:
        shutil.chown(root / "logs", user)
    subprocess.run(["apache2", "-f", str(root / "httpd.conf"), "-k", "start"], check=True,
                   env={**os.environ, "APACHE_RUN_DIR": str(root), "APACHE_LOCK_DIR": str(root)})
    deadline = time.time() + 15
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{apache_port}/", timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.1)
    yield apache_port, gatehouse, root
    subprocess.run(["apache2", "-f", str(root / "httpd.conf"), "-k", "stop"], check=False)
    gatehouse.stop()


def test_mod_auth_openidc_signs_a_browser_in_through_gatehouse(apache_and_gatehouse, browsers):
    apache_port, gatehouse, root = apache_and_gatehouse
    driver = browsers()
    driver.get(f"http://127.0.0.1:{apache_port}/protected/hello.txt")
    WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(gatehouse.url + "/sign-in"))
    screenshot(driver, "mod-auth-openidc-sign-in")
    driver.find_element(By.NAME, "email").send_keys("rp@example.com")
    driver.find_element(By.NAME, "password").send_keys("apache sign in password")
    driver.find_element(By.CSS_SELECTOR, 'form[action="/sign-in"] button[type=submit]').click()
    try:
        WebDriverWait(driver, 15).until(lambda d: "hello from behind mod_auth_openidc" in d.page_source)
    except Exception:
        log = (root / "logs" / "error.log").read_text()
        raise AssertionError(f"not signed in; at {driver.current_url}\n{driver.page_source[:500]}\napache log:\n{log[-3000:]}")
    assert driver.current_url == f"http://127.0.0.1:{apache_port}/protected/hello.txt"
    # Apache keeps its own session now: a second visit does not go back to Gatehouse.
    driver.get(f"http://127.0.0.1:{apache_port}/protected/hello.txt")
    assert "hello from behind mod_auth_openidc" in driver.page_source
