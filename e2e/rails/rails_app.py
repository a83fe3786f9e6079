"""Start the example Rails app (examples/rails) signed in through a real Gatehouse, in either deployment shape.

    stack = RailsStack(shape="two-hosts")       # Gatehouse on 127.0.0.1:<p1>, Rails on localhost:<p2>
    stack = RailsStack(shape="one-origin")      # nginx on 127.0.0.1:<p>: / -> Rails, /auth -> Gatehouse
    stack.app_url, stack.issuer, stack.gatehouse (a conftest.GatehouseProcess), stack.create_user(email, password)
    stack.stop()

Interface kept stable for other suites (native hand-off, Hotwire Native emulator): keyword arguments only.
- `demo=True` (default) runs Gatehouse with GATEHOUSE_DEMO=1: simulated Apple/Google/GitHub and the `demo-native` app.
- `extra_clients` are added to Gatehouse's `clients` config; `config` is merged into the rest of it.
- `client_settings` are merged into the example app's own client (e.g. `backchannel_logout_uri`); `app_url` is known
  before start, so settings and config may be a function of it (`callable(app_url) -> dict`).
- `stop_rails()` / `start_rails()` stop and start the app on the same port and database (deliveries while it is down).
- `client_secret` is the secret the Rails app presents (default: the registered one); a wrong one proves the error page.
- `gatehouse_env` / `rails_env` add environment variables to each process.
- `https=True` (one origin only): nginx terminates TLS with a throwaway certificate, Gatehouse's public URL is https
  (so its cookies are `__Secure-gatehouse_*`), and the Rails app trusts that certificate. Browsers need
  `accept_insecure_certs`.
- `cross_site_providers=True` serves the simulated Apple/Google/GitHub from a separate `gatehouse-simulator` at
  http://localhost:<port> (another site than Gatehouse's 127.0.0.1), so Apple's form_post is a real cross-site POST.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from conftest import BINARY, ROOT, GatehouseProcess, free_port  # noqa: E402

RAILS_ROOT = ROOT / "examples" / "rails"
GEM_ROOT = ROOT / "Integrations" / "Rails"
CLIENT_ID = "example-rails"
CLIENT_SECRET = "example-rails-secret-0123456789abcdef"
PREFIX = "/auth"  # where Gatehouse lives in the one-origin shape


def wait_for(url, timeout, process=None, log=None, context=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url}: process exited\n" + "".join((log or [])[-40:]))
        try:
            with urllib.request.urlopen(url, timeout=2, context=context):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout}s\n" + "".join((log or [])[-40:]))


_installed_gem_home = None


def gem_build(output_dir):
    """`gem build` of Integrations/Rails into `output_dir`; returns the .gem file's path."""
    output = pathlib.Path(output_dir) / "gatehouse-rails.gem"
    subprocess.run(["gem", "build", "gatehouse-rails.gemspec", "--output", str(output)], cwd=GEM_ROOT, check=True,
                   capture_output=True, text=True)
    return output


def installed_gem_home():
    """A GEM_HOME holding gatehouse-rails, built and installed once per test process the way the guide's Debian route
    does it (`gem install --local`: its dependencies must resolve to Debian's packages, nothing is downloaded)."""
    global _installed_gem_home
    if _installed_gem_home is None:
        directory = pathlib.Path(tempfile.mkdtemp(prefix="gatehouse-gem-"))
        gem = gem_build(directory)
        home = directory / "gems"
        subprocess.run(["gem", "install", "--local", "--no-document", str(gem)], env={**os.environ, "GEM_HOME": str(home)},
                       cwd=directory, check=True, capture_output=True, text=True)
        _installed_gem_home = str(home)
    return _installed_gem_home


DEPLOY_ONE_ORIGIN = ROOT / "deploy" / "nginx-one-origin.conf"


def one_origin_server(port, gatehouse_port, rails_port, tls=None):
    """deploy/nginx-one-origin.conf as shipped, changed only where a test must: the upstreams' ports, the listen
    address (a loopback port, TLS only when asked) and the certificate; the port-80 redirect server is left out.
    Its proxy headers and locations (Gatehouse under /auth, the association files) are the ones under test."""
    text = DEPLOY_ONE_ORIGIN.read_text()
    text = text.replace("server 127.0.0.1:8081;", f"server 127.0.0.1:{gatehouse_port};")
    text = text.replace("server 127.0.0.1:3000;", f"server 127.0.0.1:{rails_port};")
    text = re.sub(r"server \{\n    listen 80;.*?\n\}\n", "", text, flags=re.S)
    listen = re.compile(r"    listen 443 ssl http2;.*\n    listen \[::\]:443 ssl http2;\n")
    assert listen.search(text), "deploy/nginx-one-origin.conf: the listen lines changed"
    text = listen.sub(f"    listen 127.0.0.1:{port}{' ssl' if tls else ''};\n", text)
    if tls:
        text = re.sub(r"ssl_certificate     \S+;", f"ssl_certificate     {tls[0]};", text)
        text = re.sub(r"ssl_certificate_key \S+;", f"ssl_certificate_key {tls[1]};", text)
    else:
        text = re.sub(r"    ssl_\w+ .*\n", "", text)
    return text


class Nginx:
    """A private nginx on a loopback port running deploy/nginx-one-origin.conf: `/auth/` to Gatehouse (path kept),
    the association files to Gatehouse, everything else to Rails."""

    def __init__(self, port, gatehouse_port, rails_port, tls=None):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="gatehouse-nginx-"))
        (self.dir / "logs").mkdir()
        conf = self.dir / "nginx.conf"
        server = one_origin_server(port, gatehouse_port, rails_port, tls)
        conf.write_text(f"""
daemon off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
{server}
}}
""")
        self.process = subprocess.Popen(["nginx", "-p", str(self.dir), "-c", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class RailsStack:
    def __init__(self, shape="two-hosts", demo=True, extra_clients=(), config=None, client_secret=None,
                 gatehouse_env=None, rails_env=None, cross_site_providers=False, https=False, client_settings=None):
        assert shape in ("two-hosts", "one-origin"), shape
        self.shape = shape
        self.nginx = None
        self.simulator = None
        rails_port = free_port()
        gatehouse_port = free_port()
        assert not https or shape == "one-origin", "https is for the one-origin shape (nginx terminates TLS)"
        self.tls = self._make_certificate() if https else None
        if shape == "one-origin":
            self.public_port = free_port()
            self.app_url = f"{'https' if https else 'http'}://127.0.0.1:{self.public_port}"
            self.issuer = self.app_url + PREFIX
            rails_host = "127.0.0.1"
        else:
            # Another host name for loopback: its own origin and its own cookie jar in the browser.
            rails_host = "127.0.0.1,[::1]"
            self.app_url = f"http://localhost:{rails_port}"
            self.issuer = f"http://127.0.0.1:{gatehouse_port}"

        client = {"id": CLIENT_ID, "name": "Example app", "type": "confidential", "secret": CLIENT_SECRET,
                  "redirect_uris": [self.app_url + "/login/gatehouse/callback"],
                  "post_logout_redirect_uris": [self.app_url + "/session/signed-out"], "first_party": True,
                  "allow_localhost": shape == "two-hosts"}
        client.update((client_settings(self.app_url) if callable(client_settings) else client_settings) or {})
        full_config = dict((config(self.app_url) if callable(config) else config) or {})
        full_config["clients"] = [client, *extra_clients, *full_config.get("clients", [])]
        self.gatehouse = self.rails = self.rails_dir = None
        try:
            self._start(shape, demo, full_config, gatehouse_env, rails_env, client_secret, cross_site_providers,
                        rails_port, gatehouse_port, rails_host)
        except BaseException:
            self.stop()
            raise

    def _start(self, shape, demo, full_config, gatehouse_env, rails_env, client_secret, cross_site_providers,
               rails_port, gatehouse_port, rails_host):
        if cross_site_providers:
            full_config["providers"] = self._start_simulator()
        env = {"GATEHOUSE_DEMO": "1" if demo else "0", **(gatehouse_env or {})}
        if shape == "one-origin":
            env["GATEHOUSE_PUBLIC_URL"] = self.issuer
            self.gatehouse = GatehouseProcess(extra_env=env, config=full_config, path_prefix=PREFIX, port=gatehouse_port)
        else:
            self.gatehouse = GatehouseProcess(extra_env=env, config=full_config, port=gatehouse_port)

        self.rails_dir = tempfile.mkdtemp(prefix="gatehouse-rails-")
        self.rails_lines = []
        rails_environment = dict(os.environ)
        rails_environment.update({
            "GATEHOUSE_ISSUER": self.issuer, "GATEHOUSE_CLIENT_ID": CLIENT_ID,
            "GATEHOUSE_CLIENT_SECRET": client_secret or CLIENT_SECRET,
            "APP_URL": self.app_url, "PORT": str(rails_port), "BIND": rails_host,
            "DATABASE_PATH": os.path.join(self.rails_dir, "example.sqlite3"),
            "SECRET_KEY_BASE": os.urandom(32).hex(), "PYTHON": sys.executable, "GEM_HOME": installed_gem_home(),
            **({"GATEHOUSE_CA_FILE": self.tls[0]} if self.tls else {}),
            **(rails_env or {}),
        })
        self.rails_environment, self.rails_port = rails_environment, rails_port
        self.start_rails()
        if shape == "one-origin":
            self.nginx = Nginx(self.public_port, self.gatehouse.port, rails_port, tls=self.tls)
        wait_for(self.issuer + "/.well-known/openid-configuration", 20, context=self._ssl_context())

    def start_rails(self):
        """Starts (or restarts) the Rails app on its port and database, and waits until it answers."""
        self.rails = subprocess.Popen([str(RAILS_ROOT / "bin" / "start")], env=self.rails_environment, cwd=RAILS_ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(f"http://127.0.0.1:{self.rails_port}/session/new", 180, self.rails, self.rails_lines)

    def stop_rails(self):
        self.rails.terminate()
        try:
            self.rails.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.rails.kill()
            self.rails.wait(timeout=5)

    @property
    def rails_database(self):
        return self.rails_environment["DATABASE_PATH"]

    def _make_certificate(self):
        """A throwaway self-signed certificate for 127.0.0.1 (the Rails app trusts it via GATEHOUSE_CA_FILE)."""
        directory = tempfile.mkdtemp(prefix="gatehouse-tls-")
        cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        return cert, key

    def _ssl_context(self):
        if not self.tls:
            return None
        import ssl
        return ssl.create_default_context(cafile=self.tls[0])

    def _start_simulator(self):
        """A stand-alone provider simulator on another site (localhost); returns Gatehouse's `providers` section."""
        port = free_port()
        callback = self.issuer + "/auth/{}/callback"
        self.simulator = subprocess.Popen(
            [str(BINARY.parent / "gatehouse-simulator"), "--listen", f"127.0.0.1:{port}", "--base-url", f"http://localhost:{port}",
             "--demo", "--apple-redirect", callback.format("apple"), "--google-redirect", callback.format("google"),
             "--github-redirect", callback.format("github")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.simulator.stdout.readline()  # "listening …"
        demo = json.loads(self.simulator.stdout.readline())
        threading.Thread(target=lambda: [None for _ in self.simulator.stdout], daemon=True).start()
        apple, google, github = demo["apple"], demo["google"], demo["github"]
        return {
            "apple": {"client_id": apple["client_id"], "team_id": apple["team_id"], "key_id": apple["key_id"],
                      "private_key": apple["private_key_pem"],
                      "endpoints": {"authorization": apple["authorization_endpoint"], "token": apple["token_endpoint"],
                                    "jwks": apple["jwks_uri"], "revocation": apple["revocation_endpoint"]}},
            "google": {"client_id": google["client_id"], "client_secret": google["client_secret"],
                       "discovery_url": google["discovery_url"], "issuer": google["issuer"]},
            "github": {"client_id": github["client_id"], "client_secret": github["client_secret"],
                       "endpoints": {"authorization": github["authorization_endpoint"], "token": github["token_endpoint"],
                                     "api": github["api_base_url"]}},
        }

    def _read(self):
        rails = self.rails
        for line in rails.stdout:
            self.rails_lines.append(line)

    def create_user(self, email, password, name=None):
        """A verified password account in Gatehouse (through the CLI, on Gatehouse's database)."""
        env = {"GATEHOUSE_DATABASE_URL": f"sqlite://{self.gatehouse.dir}/gatehouse.sqlite", "PATH": "/usr/bin:/bin"}
        args = [str(BINARY), "user", "create", "--email", email, "--password-stdin", "--verified"]
        if name:
            args += ["--name", name]
        subprocess.run(args, input=password + "\n", text=True, env=env, check=True, capture_output=True)

    def stop(self):
        """Stops whatever was started (also after a failed start)."""
        if getattr(self, "rails", None) is not None and self.rails.poll() is None:
            self.rails.terminate()
            try:
                self.rails.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.rails.kill()
        if self.nginx:
            self.nginx.stop()
        if getattr(self, "gatehouse", None) is not None:
            self.gatehouse.stop()
        if self.simulator:
            self.simulator.terminate()
            self.simulator.wait(timeout=10)
        if getattr(self, "rails_dir", None):
            shutil.rmtree(self.rails_dir, ignore_errors=True)
        if getattr(self, "tls", None):
            shutil.rmtree(os.path.dirname(self.tls[0]), ignore_errors=True)
