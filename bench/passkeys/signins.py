#!/usr/bin/env python3
"""Server CPU per sign-in: N passkey sign-ins (the sign-in page, the options, the assertion) beside N password
sign-ins (the sign-in page, the form with Argon2id), against a running Gatehouse whose pid is given. CPU is the
server's user+system time from /proc over each batch, so a loaded machine slows the batches but does not inflate
the cost. The passkey is registered through the account page's routes, signed with a P-256 key held here.

Usage: signins.py URL PID EMAIL PASSWORD N"""
import base64, hashlib, http.cookiejar, json, os, re, struct, sys, urllib.parse, urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

URL, PID, EMAIL, PASSWORD, N = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
HOST = urllib.parse.urlparse(URL).hostname


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """The few CBOR shapes an attestation object needs (shortest form, keys in the given order)."""
    def head(major, n):
        if n < 24: return bytes([major << 5 | n])
        if n < 256: return bytes([major << 5 | 24, n])
        return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        return head(3, len(value.encode())) + value.encode()
    if isinstance(value, list):  # a map, as (key, value) pairs
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value)
    raise TypeError(value)


class Browser:
    def __init__(self):
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                                  NoRedirect())

    def get(self, path):
        with self.opener.open(URL + path) as r:
            return r.read().decode()

    def post(self, path, fields):
        data = urllib.parse.urlencode(fields).encode()
        try:
            with self.opener.open(urllib.request.Request(URL + path, data=data, headers={"Accept": "application/json"})) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def csrf(self, path):
        return re.search(r'name="csrf_token" value="([^"]*)"', self.get(path)).group(1)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def password_sign_in(browser):
    status, _ = browser.post("/sign-in", {"csrf_token": browser.csrf("/sign-in"), "email": EMAIL, "password": PASSWORD})
    assert status == 303, status


key = ec.generate_private_key(ec.SECP256R1())
numbers = key.public_key().public_numbers()
credential_id = os.urandom(16)
count = 0


def register(browser):
    global count
    token = browser.csrf("/account")
    status, body = browser.post("/account/passkeys/options", {"csrf_token": token})
    assert status == 200, body
    options = json.loads(body)["publicKey"]
    cose = cbor([(1, 2), (3, -7), (-1, 1), (-2, numbers.x.to_bytes(32, "big")), (-3, numbers.y.to_bytes(32, "big"))])
    count = 1
    auth_data = (hashlib.sha256(HOST.encode()).digest() + bytes([0x45]) + struct.pack(">I", count) + bytes(16)
                 + struct.pack(">H", len(credential_id)) + credential_id + cose)
    client_data = json.dumps({"type": "webauthn.create", "challenge": options["challenge"], "origin": URL}).encode()
    attestation = cbor([("fmt", "none"), ("attStmt", []), ("authData", auth_data)])
    status, body = browser.post("/account/passkeys", {"csrf_token": token, "name": "bench", "credential_id": b64url(credential_id),
                                                      "client_data_json": b64url(client_data),
                                                      "attestation_object": b64url(attestation), "transports": "internal"})
    assert status == 200, body


def passkey_sign_in(browser):
    global count
    token = browser.csrf("/sign-in")
    status, body = browser.post("/passkeys/sign-in/options", {"csrf_token": token})
    assert status == 200, body
    challenge = json.loads(body)["publicKey"]["challenge"]
    count += 1
    auth_data = hashlib.sha256(HOST.encode()).digest() + bytes([0x05]) + struct.pack(">I", count)
    client_data = json.dumps({"type": "webauthn.get", "challenge": challenge, "origin": URL}).encode()
    signature = key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
    status, body = browser.post("/passkeys/sign-in", {"csrf_token": token, "credential_id": b64url(credential_id),
                                                      "client_data_json": b64url(client_data), "authenticator_data": b64url(auth_data),
                                                      "signature": b64url(signature), "user_handle": ""})
    assert status == 200, body


def ticks():
    with open(f"/proc/{PID}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def measure(name, sign_in):
    hz = os.sysconf("SC_CLK_TCK")
    before = ticks()
    for _ in range(N):
        sign_in(Browser())
    used = (ticks() - before) / hz
    print(f"| {name} | {N} | {used * 1000 / N:.2f} |")
    return used / N


setup = Browser()
password_sign_in(setup)
register(setup)
print("| sign-in | count | server CPU ms per sign-in |")
print("|---|---|---|")
passkey = measure("passkey (GET /sign-in, POST options, POST assertion; ES256)", passkey_sign_in)
password = measure("password (GET /sign-in, POST /sign-in; Argon2id default)", password_sign_in)
print(f"password / passkey CPU: {password / passkey:.1f}x")
