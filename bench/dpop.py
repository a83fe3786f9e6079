#!/usr/bin/env python3
"""Server CPU per request of a DPoP-bound refresh and userinfo beside the unbound (Bearer) ones.

    bench/dpop.sh            # builds, starts gatehouse, runs this; BINARY=.build/debug/gatehouse for a debug build

CPU is the server's user+system time (/proc/PID/stat) over N sequential requests, divided by N: load-independent
enough for a shared machine (the client's work, making proofs, is not counted). Each refresh rotates the token it
got from the one before; each bound request carries a fresh proof (single-use jti, iat now) made before the clock
starts reading."""
import os
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from dpop_client import DPoPKey  # noqa: E402

URL, PID = sys.argv[1], int(sys.argv[2])
N = int(os.environ.get("DPOP_BENCH_REQUESTS", "400"))
HZ = os.sysconf("SC_CLK_TCK")
http = requests.Session()


def cpu():
    fields = open(f"/proc/{PID}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def sign_in(key):
    headers = {"DPoP": key.proof("POST", URL + "/oauth/token")} if key else {}
    response = http.post(URL + "/oauth/token", headers=headers, data={
        "grant_type": "password", "client_id": "bench-native", "username": "bench@example.com",
        "password": "bench password 1234", "scope": "openid email offline_access"})
    assert response.status_code == 200, response.text
    return response.json()


def measure(name, send):
    send(0)                        # warm up: the first call of each path pays one-time costs
    total, ok = 0.0, 0
    for i in range(N):
        prepared = send.prepare(i) if hasattr(send, "prepare") else None
        before = cpu()
        status = send(i, prepared) if prepared is not None else send(i)
        total += cpu() - before
        ok += status == 200
    print(f"| {name} | {total / N * 1e6:.0f} | {ok}/{N} |")
    return total / N


class Refresh:
    def __init__(self, key):
        self.key = key
        self.token = sign_in(key)["refresh_token"]

    def prepare(self, _):
        return {"DPoP": self.key.proof("POST", URL + "/oauth/token")} if self.key else {}

    def __call__(self, _, headers=None):
        response = http.post(URL + "/oauth/token", headers=headers if headers is not None else self.prepare(0),
                             data={"grant_type": "refresh_token", "client_id": "bench-native", "refresh_token": self.token})
        if response.status_code == 200:
            self.token = response.json()["refresh_token"]
        return response.status_code


class Userinfo:
    def __init__(self, key):
        self.key = key
        self.access = sign_in(key)["access_token"]

    def prepare(self, _):
        if not self.key:
            return {"Authorization": "Bearer " + self.access}
        return {"Authorization": "DPoP " + self.access,
                "DPoP": self.key.proof("GET", URL + "/oauth/userinfo", access_token=self.access)}

    def __call__(self, _, headers=None):
        return http.get(URL + "/oauth/userinfo", headers=headers if headers is not None else self.prepare(0)).status_code


print(f"N = {N} sequential requests each; server CPU (user+sys) per request, µs")
print("| request | CPU µs/request | 200s |")
print("|---|---|---|")
rows = {}
for name, make in [("refresh, Bearer", lambda: Refresh(None)), ("refresh, DPoP-bound (ES256 proof)", lambda: Refresh(DPoPKey())),
                   ("userinfo, Bearer", lambda: Userinfo(None)), ("userinfo, DPoP (ES256 proof with ath)", lambda: Userinfo(DPoPKey()))]:
    rows[name] = measure(name, make())
time.sleep(0)
