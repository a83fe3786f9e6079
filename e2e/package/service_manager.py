"""systemd's part in a package install, played by the test harness on a machine without systemd.

The maintainer scripts act only where `/run/systemd/system` exists. `ServiceManager.dpkg` runs `dpkg` in a
private mount namespace where it does (a tmpfs over /run, so nothing leaks to the machine), with `systemctl` and
`deb-systemd-invoke` on PATH replaced by a stand-in that asks this harness over a Unix socket. The harness then does
what systemd does for gatehouse.service: `stop` sends SIGTERM and waits for the exit, `start` runs the unit's
ExecStart as its User with its EnvironmentFile and, for `Type=notify`, returns only once the process sent
READY=1 on NOTIFY_SOCKET (as `systemctl start` does). Every call is recorded with its time, so a test can show the
order the maintainer scripts asked for (stop, migrate, start).
"""
import os
import pathlib
import shlex
import signal
import socket
import subprocess
import tempfile
import threading
import time

UNIT = pathlib.Path("/lib/systemd/system/gatehouse.service")
SERVICE = "gatehouse.service"

# The stand-in for systemctl and deb-systemd-invoke: sends its argv, prints what the harness answers, exits with
# its code.
SHIM = """#!/usr/bin/python3
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["GATEHOUSE_TEST_SERVICE_MANAGER"])
s.sendall(("\\0".join([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\\n").encode())
answer = b""
while not answer.endswith(b"\\n"):
    chunk = s.recv(4096)
    if not chunk:
        break
    answer += chunk
code, _, text = answer.decode().rstrip("\\n").partition(" ")
if text:
    print(text)
sys.exit(int(code or 1))
"""


def unit_settings(text):
    """The unit's settings, the last value of each key winning (as systemd reads repeated keys here)."""
    settings = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")) and "=" in line:
            key, value = line.split("=", 1)
            settings[key.strip()] = value.strip()
    return settings


def read_env_file(path):
    env = {}
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, value = line.split("=", 1)
            env[key] = value
    return env


class ServiceManager:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="gatehouse-systemd-")
        os.chmod(self.dir, 0o755)
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        for name in ("systemctl", "deb-systemd-invoke"):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(SHIM)
            os.chmod(path, 0o755)
        self.control = os.path.join(self.dir, "control.sock")
        self.calls = []          # (time, argv) of every systemctl / deb-systemd-invoke call
        self.events = []         # (time, what): "stopping", "stopped <code>", "starting", "ready", "started"
        self.process = None
        self.runs = []           # the service's stdout+stderr lines, one list per start
        self.notifications = []  # (time, message) from NOTIFY_SOCKET
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.control)
        self._listener.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    # --- what the maintainer scripts reach ---

    def _serve(self):
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection):
        with connection:
            data = b""
            while not data.endswith(b"\n"):
                chunk = connection.recv(4096)
                if not chunk:
                    return
                data += chunk
            argv = data.decode().rstrip("\n").split("\0")
            self.calls.append((time.time(), argv))
            try:
                code, text = self._dispatch(argv)
            except Exception as error:   # a harness fault is the script's failure, visible in dpkg's output
                code, text = 1, f"service manager: {error}"
            connection.sendall(f"{code} {text}\n".encode())

    def _dispatch(self, argv):
        words = [word for word in argv[1:] if not word.startswith("-")]
        if SERVICE not in words:
            return 0, ""   # daemon-reload, is-enabled of other units, …: nothing for this harness to do
        action = words[0]
        if action == "stop":
            self.stop()
        elif action == "start":
            self.start()
        elif action in ("restart", "try-restart"):
            if action == "restart" or self.running():
                self.stop()
                self.start()
        elif action == "is-active":
            return (0, "active") if self.running() else (3, "inactive")
        elif action == "is-enabled":
            return 0, "enabled"
        return 0, ""

    # --- systemd's handling of gatehouse.service ---

    def running(self):
        return self.process is not None and self.process.poll() is None

    def start(self, timeout=None):
        with self._lock:
            if self.running():
                return
            settings = unit_settings(UNIT.read_text())
            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **read_env_file(settings["EnvironmentFile"])}
            notify = settings.get("Type", "simple") == "notify"
            receiver = None
            if notify:
                path = os.path.join(self.dir, f"notify-{time.time_ns()}.sock")
                receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                receiver.bind(path)
                os.chmod(path, 0o777)   # the service runs as its User and must reach it
                receiver.settimeout(0.2)
                env["NOTIFY_SOCKET"] = path
            self.events.append((time.time(), "starting"))
            self.process = subprocess.Popen(shlex.split(settings["ExecStart"]), user=settings["User"],
                                            group=settings["Group"], extra_groups=[], env=env, cwd="/",
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.runs.append([])
            threading.Thread(target=self._collect, args=(self.process, self.runs[-1]), daemon=True).start()
            if notify:
                limit = time.time() + (timeout or int(settings.get("TimeoutStartSec", "90")))
                try:
                    while True:
                        if self.process.poll() is not None:
                            raise RuntimeError(f"gatehouse exited ({self.process.returncode}) before READY=1")
                        if time.time() > limit:
                            raise RuntimeError("no READY=1 within TimeoutStartSec")
                        try:
                            message = receiver.recv(4096).decode()
                        except socket.timeout:
                            continue
                        self.notifications.append((time.time(), message))
                        if "READY=1" in message.split("\n"):
                            break
                finally:
                    threading.Thread(target=self._keep_reading, args=(receiver,), daemon=True).start()
                self.events.append((time.time(), "ready"))
            self.events.append((time.time(), "started"))

    def _keep_reading(self, receiver):
        receiver.settimeout(None)
        while True:
            try:
                self.notifications.append((time.time(), receiver.recv(4096).decode()))
            except OSError:
                return

    def _collect(self, process, lines):
        for line in process.stdout:
            lines.append(line)

    @property
    def output(self):
        return [line for run in self.runs for line in run]

    def stop(self, timeout=30):
        with self._lock:
            if not self.running():
                return None
            self.events.append((time.time(), "stopping"))
            self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                code = self.process.wait()
            self.events.append((time.time(), f"stopped {code}"))
            return code

    # --- dpkg where systemd "runs" ---

    def dpkg(self, *args):
        """`dpkg ARGS` with /run/systemd/system present (private to its mount namespace) and this harness as systemd."""
        script = 'mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system && exec "$@"'
        env = {**os.environ, "PATH": self.bin + ":/usr/sbin:/usr/bin:/sbin:/bin",
               "GATEHOUSE_TEST_SERVICE_MANAGER": self.control, "DEBIAN_FRONTEND": "noninteractive"}
        return subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
                               "dpkg", *args], env=env, capture_output=True, text=True, timeout=600)

    def close(self):
        if self.running():
            self.process.kill()
            self.process.wait()
        self._listener.close()
