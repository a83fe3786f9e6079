"""The aiosmtpd sink of the mail tests (Tests/GatehouseMailTests/Fixtures/smtp_sink.py) as a fixture's helper: every
message is read back from the raw bytes the sink received and parsed by Python's `email` package (`policy=default`)."""
import base64
import email
import email.policy
import glob
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

SINK = pathlib.Path(__file__).resolve().parent.parent / "Tests" / "GatehouseMailTests" / "Fixtures" / "smtp_sink.py"


class MailSink:
    """The aiosmtpd sink on a free port; `messages()` parses what it received."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="gatehouse-sink-")
        self.process = subprocess.Popen([sys.executable, str(SINK), self.dir], stdin=subprocess.PIPE)
        port_file = pathlib.Path(self.dir, "port")
        deadline = time.time() + 30
        while not port_file.exists():
            if time.time() > deadline or self.process.poll() is not None:
                raise RuntimeError("the SMTP sink did not start (python3 -m pip install aiosmtpd)")
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    def messages(self, to=None):
        found = []
        for path in sorted(glob.glob(os.path.join(self.dir, "message-*.json")), key=lambda p: int(re.search(r"(\d+)\.json$", p).group(1))):
            record = json.load(open(path))
            message = email.message_from_bytes(base64.b64decode(record["raw_base64"]), policy=email.policy.default)
            if to is None or to in record["rcpt_tos"]:
                found.append(message)
        return found

    def wait(self, to, fragment, timeout=20):
        """The newest message to `to` whose text part holds `fragment`, and the first link in it that does."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for message in reversed(self.messages(to)):
                text = message.get_body(preferencelist=("plain",)).get_content()
                match = re.search(r"https?://\S*" + re.escape(fragment) + r"\S*", text)
                if match:
                    return message, match.group(0)
                if fragment in text:
                    return message, None
            time.sleep(0.1)
        raise AssertionError(f"no mail to {to} with {fragment}")

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
