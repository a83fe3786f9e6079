"""A DPoP client written from RFC 9449 §4 alone, with Python's `cryptography` (no Gatehouse code):
a P-256 (or Ed25519) key, proofs as the RFC's examples build them, the `DPoP-Nonce` retry of §8,
and the RFC 7638 thumbprint a bound token's `cnf.jkt` must equal."""
import base64
import hashlib
import json
import time
import urllib.parse
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DPoPKey:
    def __init__(self, algorithm="ES256"):
        self.algorithm = algorithm
        if algorithm == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
            numbers = self.private.public_key().public_numbers()
            self.jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")),
                        "y": b64url(numbers.y.to_bytes(32, "big"))}
        elif algorithm == "EdDSA":
            self.private = ed25519.Ed25519PrivateKey.generate()
            from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
            raw = self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
            self.jwk = {"kty": "OKP", "crv": "Ed25519", "x": b64url(raw)}
        else:
            raise ValueError(algorithm)

    @property
    def thumbprint(self):
        # RFC 7638 §3: the required members, lexicographic order, no whitespace.
        required = {"EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}[self.jwk["kty"]]
        canonical = json.dumps({name: self.jwk[name] for name in required}, separators=(",", ":"), sort_keys=True)
        return b64url(hashlib.sha256(canonical.encode()).digest())

    def sign(self, data):
        if self.algorithm == "ES256":
            r, s = decode_dss_signature(self.private.sign(data, ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        return self.private.sign(data)

    def proof(self, method, url, access_token=None, nonce=None, jti=None, iat=None):
        """RFC 9449 §4.2: header typ/alg/jwk; claims jti, htm, htu (no query or fragment), iat, and ath/nonce."""
        header = {"typ": "dpop+jwt", "alg": self.algorithm, "jwk": self.jwk}
        claims = {"jti": jti or str(uuid.uuid4()), "htm": method, "htu": url.split("?")[0].split("#")[0],
                  "iat": int(iat if iat is not None else time.time())}
        if access_token is not None:
            claims["ath"] = b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        return signing_input + "." + b64url(self.sign(signing_input.encode()))


class DPoPSession:
    """Sends requests with a fresh proof each; on `use_dpop_nonce` retries once with the server's nonce (§8.1)."""

    def __init__(self, key, http, public_url=None):
        self.key = key
        self.http = http
        self.nonce = None
        # Behind a proxy (or a pair of processes) the proof names the public URL, not the one dialled.
        self.public_url = public_url

    def htu(self, url):
        if self.public_url is None:
            return url
        return self.public_url + urllib.parse.urlsplit(url).path

    def request(self, method, url, access_token=None, **kwargs):
        for attempt in range(2):
            headers = dict(kwargs.pop("headers", {}) or {})
            headers["DPoP"] = self.key.proof(method, self.htu(url), access_token=access_token, nonce=self.nonce)
            if access_token is not None:
                headers["Authorization"] = "DPoP " + access_token
            response = self.http.request(method, url, headers=headers, **kwargs)
            if "DPoP-Nonce" in response.headers:
                self.nonce = response.headers["DPoP-Nonce"]
            if attempt == 0 and _asks_for_nonce(response):
                kwargs["headers"] = {k: v for k, v in headers.items() if k not in ("DPoP", "Authorization")}
                continue
            return response
        return response


def _asks_for_nonce(response):
    if response.status_code == 400:
        try:
            return response.json().get("error") == "use_dpop_nonce"
        except ValueError:
            return False
    return response.status_code == 401 and 'error="use_dpop_nonce"' in response.headers.get("WWW-Authenticate", "")


def verify(proof, method, url, access_token=None):
    """An independent check of a proof (the SDK's, in Tests/GatehouseClientOpenSSLTests): RFC 9449 §4.3 with
    `cryptography`. Returns the claims and the key's thumbprint; raises ValueError on anything wrong."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    def decode(part):
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    head, body, signature = proof.split(".")
    header, claims = json.loads(decode(head)), json.loads(decode(body))
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
        raise ValueError(f"header {header}")
    jwk = header["jwk"]
    if set(jwk) & {"d", "p", "q", "dp", "dq", "qi"} or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        raise ValueError(f"jwk {jwk}")
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(decode(jwk["x"]), "big"), int.from_bytes(decode(jwk["y"]), "big"),
                                           ec.SECP256R1()).public_key()
    raw = decode(signature)
    if len(raw) != 64:
        raise ValueError("ES256 signatures are 64 bytes")
    try:
        public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                      (head + "." + body).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("bad signature")
    if claims.get("htm") != method or claims.get("htu") != url.split("?")[0].split("#")[0]:
        raise ValueError(f"htm/htu {claims}")
    if not claims.get("jti") or abs(time.time() - claims.get("iat", 0)) > 60:
        raise ValueError(f"jti/iat {claims}")
    if access_token is not None and claims.get("ath") != b64url(hashlib.sha256(access_token.encode()).digest()):
        raise ValueError("ath")
    key = DPoPKey.__new__(DPoPKey)
    key.jwk = {name: jwk[name] for name in ("kty", "crv", "x", "y")}
    return {"claims": claims, "jkt": key.thumbprint}


if __name__ == "__main__":
    # python3 e2e/dpop_client.py verify < {"proof","method","url","access_token"} JSON lines → one JSON result a line
    import sys
    for line in sys.stdin:
        request = json.loads(line)
        try:
            print(json.dumps({"ok": True, **verify(request["proof"], request["method"], request["url"], request.get("access_token"))}))
        except (ValueError, KeyError) as error:
            print(json.dumps({"ok": False, "error": str(error)}))
        sys.stdout.flush()
