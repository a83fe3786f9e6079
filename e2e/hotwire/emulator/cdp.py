"""A small Chrome DevTools Protocol client: one browser, flattened target sessions, events in order.

The reader thread resolves command replies and hands every event, in the order Chromium sent it, to
one consumer callback (the emulator's "main thread" queue). Commands that may not answer until the
consumer has acted (`Page.navigate` waits for the navigation it starts, which the consumer may pause)
are sent with `wait=False`.
"""
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request

import websocket

CHROMIUM = os.environ.get("GATEHOUSE_CHROMIUM", "/usr/bin/chromium")


class CDPError(Exception):
    pass


class Browser:
    """A headless Chromium started with a DevTools port, and one websocket to its browser target."""

    def __init__(self, extra_flags=()):
        self.profile = tempfile.mkdtemp(prefix="hotwire-emu-")
        flags = [
            CHROMIUM, "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--metrics-recording-only",
            "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
            f"--user-data-dir={self.profile}", "--window-size=390,844", *extra_flags, "about:blank",
        ]
        self.process = subprocess.Popen(flags, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(port_file):
                lines = open(port_file).read().split()
                if len(lines) >= 2:
                    break
            time.sleep(0.05)
        else:
            self.close()
            raise RuntimeError("chromium did not open its DevTools port")
        port = int(lines[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=5) as r:
            endpoint = json.loads(r.read())["webSocketDebuggerUrl"]
        self.ws = websocket.create_connection(endpoint, timeout=None, suppress_origin=True, enable_multithread=True)
        self._next = 0
        self._lock = threading.Lock()
        self._pending = {}
        self._listeners = []
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def add_listener(self, callback):
        """`callback(method, params, session_id)` for every event, on the reader thread, in order."""
        self._listeners.append(callback)

    def remove_listener(self, callback):
        if callback in self._listeners:
            self._listeners.remove(callback)

    def send(self, method, params=None, session_id=None, wait=True, timeout=20):
        with self._lock:
            self._next += 1
            ident = self._next
            slot = {"event": threading.Event(), "reply": None}
            self._pending[ident] = slot
        message = {"id": ident, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        self.ws.send(json.dumps(message))
        if not wait:
            return None
        if not slot["event"].wait(timeout):
            raise CDPError(f"{method}: no reply in {timeout} s")
        reply = slot["reply"]
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _read(self):
        while not self._closed:
            try:
                raw = self.ws.recv()
            except Exception:
                break
            if not raw:
                continue
            message = json.loads(raw)
            if "id" in message:
                with self._lock:
                    slot = self._pending.pop(message["id"], None)
                if slot:
                    slot["reply"] = message
                    slot["event"].set()
                continue
            for listener in list(self._listeners):
                try:
                    listener(message.get("method"), message.get("params", {}), message.get("sessionId"))
                except Exception:   # a listener's bug must not kill the reader
                    import traceback
                    traceback.print_exc()

    def close(self):
        self._closed = True
        try:
            self.ws.close()
        except Exception:
            pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
