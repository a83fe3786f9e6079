"""What the second review's black-box tests share: a browser made of `requests` that submits the *rendered* forms
(every hidden field as the page gave it), the operator's CLI of the binary under test, and an SMTP sink.

The binary is conftest's BINARY: GATEHOUSE_BINARY when set (scripts/security-regression points it at an old
commit's build), else this checkout's debug build."""
import html.parser
import os
import socketserver
import subprocess
import sys
import threading
import time
import urllib.parse

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import BINARY, free_port  # noqa: E402

PASSWORD = "correct horse battery"
# The cheapest Argon2id the config accepts: these tests count outcomes, not hashing cost.
FAST_PASSWORDS = {"argon2_memory_kib": 8192, "argon2_iterations": 1}


class _Forms(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms, self._current = [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._current = {"action": attrs.get("action", ""), "method": (attrs.get("method") or "get").lower(),
                             "fields": {}, "names": []}
            self.forms.append(self._current)
        elif tag in ("input", "textarea", "select", "button") and self._current is not None and attrs.get("name"):
            self._current["names"].append(attrs["name"])
            if tag == "input" and attrs.get("type") in ("checkbox", "radio") and "checked" not in attrs:
                return
            if tag != "button":
                self._current["fields"].setdefault(attrs["name"], attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None


def forms(page_html):
    parser = _Forms()
    parser.feed(page_html)
    return parser.forms


class Browser:
    """A cookie jar that GETs pages and submits their forms as a browser does (no script)."""

    def __init__(self, base):
        self.base = base.rstrip("/")
        self.http = requests.Session()
        self.page = None

    def url(self, path):
        return path if path.startswith("http") else self.base + path

    def get(self, path, **kwargs):
        self.page = self.http.get(self.url(path), timeout=15, **kwargs)
        return self.page

    def form(self, action_prefix):
        assert self.page is not None, "no page open"
        base_path = urllib.parse.urlsplit(self.base).path
        for form in forms(self.page.text):
            action = form["action"]
            if action.startswith(action_prefix) or action.startswith(base_path + action_prefix):
                return form
        return None

    def submit(self, action_prefix, fields=None, allow_redirects=False):
        """Submits the open page's form whose action starts with action_prefix, its hidden fields as rendered."""
        form = self.form(action_prefix)
        assert form is not None, f"no form to {action_prefix} on {self.page.url}: {self.page.text[:500]}"
        data = dict(form["fields"])
        data.update(fields or {})
        action = urllib.parse.urljoin(self.page.url, form["action"])
        self.page = self.http.post(action, data=data, allow_redirects=allow_redirects, timeout=15)
        return self.page

    def sign_up(self, email, password=PASSWORD):
        self.get("/sign-up")
        return self.submit("/sign-up", {"email": email, "password": password, "name": ""})

    def sign_in(self, email, password=PASSWORD, return_to=None):
        self.get("/sign-in" + ("?return_to=" + urllib.parse.quote(return_to, safe="") if return_to else ""))
        fields = {"email": email, "password": password}
        return self.submit("/sign-in", fields)

    def signed_in(self):
        return self.http.get(self.url("/account"), allow_redirects=False, timeout=15).status_code == 200


def cli(server, *args, input=None):
    """The operator's real CLI, on the server's database, with its config file when it has one."""
    env = dict(os.environ, GATEHOUSE_DATABASE_URL=server._env["GATEHOUSE_DATABASE_URL"], GATEHOUSE_DEMO="0")
    for key in ("GATEHOUSE_SECRET_KEY", "GATEHOUSE_PUBLIC_URL"):
        if key in server._env:
            env[key] = server._env[key]
    config = os.path.join(server.dir, "config.json")
    extra = ["--config", config] if os.path.exists(config) else []
    return subprocess.run([str(BINARY), *args, *extra], env=env, input=input, capture_output=True, text=True, timeout=60)


def user_row(server, email):
    """`gatehouse user list`'s row for email as a dict (email, verified, disabled, created), or None."""
    listing = cli(server, "user", "list")
    assert listing.returncode == 0, listing.stdout + listing.stderr
    lines = listing.stdout.splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        if row.get("email") == email:
            return row
    return None


class SMTPSink:
    """A minimal SMTP server on loopback that keeps every message (RFC 5321's commands, no TLS, no auth)."""

    def __init__(self):
        self.port = free_port()
        self.messages = []   # (recipients, data)
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                self.wfile.write(b"220 sink ESMTP\r\n")
                recipients, data = [], None
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    if data is not None:
                        if line in (b".\r\n", b".\n"):
                            sink.messages.append((recipients, b"".join(data).decode(errors="replace")))
                            recipients, data = [], None
                            self.wfile.write(b"250 kept\r\n")
                        else:
                            data.append(line[1:] if line.startswith(b"..") else line)
                        continue
                    verb = line[:4].upper()
                    if verb in (b"EHLO", b"HELO"):
                        self.wfile.write(b"250-sink\r\n250 8BITMIME\r\n")
                    elif verb == b"RCPT":
                        recipients.append(line.decode().split(":", 1)[1].strip().strip("<>"))
                        self.wfile.write(b"250 ok\r\n")
                    elif verb == b"DATA":
                        data = []
                        self.wfile.write(b"354 go on\r\n")
                    elif verb == b"QUIT":
                        self.wfile.write(b"221 bye\r\n")
                        return
                    else:   # MAIL, RSET, NOOP
                        self.wfile.write(b"250 ok\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"smtp://127.0.0.1:{self.port}"

    def to(self, address):
        return [data for recipients, data in self.messages if address in recipients]

    def wait(self, predicate, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline and not predicate():
            time.sleep(0.05)
        return predicate()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
