"""Measured through nginx: behind a trusted proxy 1,000 distinct users
(50 to an address, as behind carrier NAT) sign in within a minute and all succeed, while 10,000
wrong guesses from one address are slowed (429 without a password hash), and the owners of the
guessed accounts sign in once their back-off has passed."""
import concurrent.futures
import http.client
import os
import re
import sys
import threading
import time
import urllib.parse

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from conftest import GatehouseProcess  # noqa: E402
from nginx_support import Nginx  # noqa: E402

USERS = 1000
PER_ADDRESS = 50
GUESSES = 10_000
PASSWORD = "a long enough password"
ACCOUNT_BACKOFF = 6   # seconds: rate_limits.sign_in_per_account below
ATTACKER = "203.0.113.66"
CONFIG = {
    "http": {"trusted_proxies": ["127.0.0.1/32"]},
    "passwords": {"argon2_memory_kib": 8192, "argon2_iterations": 1},
    "rate_limits": {
        "sign_in_per_ip": [{"limit": 10, "window_seconds": 180}],
        "sign_in_per_account": [{"limit": 5, "window_seconds": ACCOUNT_BACKOFF}],
        "sign_up_per_ip": [{"limit": PER_ADDRESS, "window_seconds": 600}],
    },
    "access_log": False,
}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def user_address(index):
    return f"198.51.100.{index // PER_ADDRESS + 1}"   # 20 addresses, 50 users behind each


class Client:
    """A keep-alive HTTP client that says which address it comes from (to nginx's realip). Like a script,
    it fetches one form (token and pre-session cookie) and reuses it, and never keeps the session cookies
    it is given, so every POST is a fresh sign-in (or sign-up)."""

    def __init__(self, port, address):
        self.port, self.address = port, address
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        page = self.request("GET", "/sign-in")
        self.token = CSRF.search(page[2]).group(1)
        self.cookie = "; ".join(c.split(";", 1)[0] for c in page[1].get_all("Set-Cookie") or [])

    def request(self, method, path, body=None, headers=None):
        headers = dict(headers or {}, **{"X-Forwarded-For": self.address})
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.headers, response.read().decode()
            except (http.client.HTTPException, OSError):
                self.connection.close()   # a kept-alive connection closed under us: reconnect once
                if attempt:
                    raise

    def post(self, path, fields):
        body = urllib.parse.urlencode({"csrf_token": self.token, **fields})
        return self.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded", "Cookie": self.cookie})

    def sign_in(self, email, password):
        return self.post("/sign-in", {"email": email, "password": password})


def email(index):
    return f"user{index}@example.com"


def run(fn, items, workers):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))


def test_thousand_users_sign_in_while_one_address_guesses():
    gatehouse = GatehouseProcess(config=CONFIG)
    nginx = Nginx(gatehouse.port)
    try:
        # Seeding: 1,000 sign-ups through nginx, 50 from each address (sign-ups are not what is measured).
        clients = {address: Client(nginx.port, address) for address in sorted({user_address(i) for i in range(USERS)})}
        local = threading.local()

        def client_for(address):
            # One connection per thread and address (http.client connections are not shared between threads).
            cache = local.__dict__.setdefault("clients", {})
            if address not in cache:
                shared = clients[address]
                mine = Client.__new__(Client)
                mine.port, mine.address, mine.token, mine.cookie = shared.port, address, shared.token, shared.cookie
                mine.connection = http.client.HTTPConnection("127.0.0.1", shared.port, timeout=30)
                cache[address] = mine
            return cache[address]

        statuses = run(lambda i: client_for(user_address(i)).post("/sign-up", {"email": email(i), "password": PASSWORD})[0],
                       range(USERS), 8)
        assert statuses == [303] * USERS

        # The attack: 10,000 wrong guesses from one address, aimed at two real accounts (and so at their
        # back-off) and at unknown ones, reusing one form token as a script would.
        victims = [email(7), email(777)]
        attacker = Client(nginx.port, ATTACKER)
        guess_results = []
        lock = threading.Lock()

        def guess(batch):
            mine = Client.__new__(Client)
            mine.port, mine.address, mine.token, mine.cookie = attacker.port, ATTACKER, attacker.token, attacker.cookie
            mine.connection = http.client.HTTPConnection("127.0.0.1", attacker.port, timeout=30)
            found = []
            for n in batch:
                target = victims[n % 2] if n < 1000 else f"nobody{n}@example.com"
                status, headers, _ = mine.sign_in(target, f"guess {n}")
                found.append((status, headers.get("Retry-After")))
            with lock:
                guess_results.extend(found)

        batches = [range(start, GUESSES, 8) for start in range(8)]
        attack = threading.Thread(target=lambda: run(guess, batches, 8))

        # Meanwhile every user signs in: 1,000 sign-ins, each a new session.
        started = time.monotonic()
        attack.start()
        results = run(lambda i: client_for(user_address(i)).sign_in(email(i), PASSWORD), range(USERS), 8)
        users_elapsed = time.monotonic() - started
        attack.join()
        attack_elapsed = time.monotonic() - started

        failed = [(i, status) for i, (status, headers, _) in enumerate(results)
                  if status != 303 or headers["Location"] != "/account"]
        # The victims' own sign-ins may meet their back-off (the attacker's failures on them): that is the design.
        assert [f for f in failed if email(f[0]) not in victims] == []
        assert users_elapsed < 60, f"1,000 sign-ins took {users_elapsed:.1f} s"

        codes = [status for status, _ in guess_results]
        assert len(codes) == GUESSES
        wrong, limited = codes.count(401), codes.count(429)
        assert wrong + limited == GUESSES, {c: codes.count(c) for c in set(codes)}
        # 10 failures per 3 minutes from that address, plus the few already in flight when it was reached.
        assert wrong <= 10 + 8, f"{wrong} guesses were checked"
        assert all(int(after) > 0 for status, after in guess_results if status == 429)
        print(f"\n1,000 sign-ins: {users_elapsed:.1f} s; 10,000 guesses: {wrong} answered 401, {limited} answered 429 "
              f"(attack done after {attack_elapsed:.1f} s)")

        # A victim's owner, right after the attack: the back-off holds even with the right password, and only
        # for that account (everyone else signed in above).
        owner = Client(nginx.port, "198.51.100.200")
        status, headers, _ = owner.sign_in(victims[0], PASSWORD)
        assert status in (303, 429)
        time.sleep((int(headers["Retry-After"]) if status == 429 else ACCOUNT_BACKOFF) + 0.5)
        for victim in victims:
            status, _, _ = owner.sign_in(victim, PASSWORD)
            assert status == 303, f"{victim} could not sign in after the back-off: {status}"
        # The guessing address is still slowed, for every account.
        assert attacker.sign_in(email(3), PASSWORD)[0] == 429

        # The session list shows the user's address, not nginx's.
        user = requests.Session()
        user.headers["X-Forwarded-For"] = "192.0.2.44"
        page = user.get(nginx.url + "/sign-in")
        token = CSRF.search(page.text).group(1)
        signed = user.post(nginx.url + "/sign-in", data={"csrf_token": token, "email": email(5), "password": PASSWORD},
                           allow_redirects=False)
        assert signed.status_code == 303
        assert "192.0.2.44" in user.get(nginx.url + "/account").text
    finally:
        nginx.stop()
        gatehouse.stop()
