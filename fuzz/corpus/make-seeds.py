#!/usr/bin/env python3
"""Writes the hand-made seed inputs under fuzz/corpus/<fuzzer>/ (re-run after changing a harness's
input layout). Seeds are small valid inputs; libFuzzer mutates from them."""
import base64, json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write(fuzzer, name, data):
    os.makedirs(os.path.join(HERE, fuzzer), exist_ok=True)
    with open(os.path.join(HERE, fuzzer, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# http-request: "METHOD TARGET VERSION", header lines, blank line, body (as libmicrohttpd hands them over)
requests = {
    "get-root": "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "get-signin-return": "GET /sign-in?return_to=%2Faccount%3Fa%3D1&x=%E2%9C%93 HTTP/1.1\r\nHost: h\r\nCookie: __Host-sid=abc; csrf=\"q1\"\r\n\r\n",
    "post-signin-form": "POST /sign-in HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 41\r\n\r\nemail=a%40b.c&password=p+w&csrf_token=t1",
    "post-token-dup": "POST /oauth/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded; charset=utf-8\r\nAuthorization: Basic Y2xpZW50OnNlY3JldA==\r\n\r\ngrant_type=authorization_code&state=a&state=b",
    "authorize": "GET /oauth/authorize?response_type=code&client_id=app&redirect_uri=com.example.app%3A%2Fcb&scope=openid%20email&state=s&code_challenge=abc&code_challenge_method=S256 HTTP/1.1\r\n\r\n",
    "param-route": "GET /oauth/clients/client-1 HTTP/1.1\r\nX-Request-Id: abc-123\r\n\r\n",
    "nested-params": "POST /users/u1/identities/github HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nstate=1",
    "catch-all": "GET /assets/css/site.css?v=1 HTTP/1.1\r\n\r\n",
    "reset-token": "GET /password/reset/AbC_-123%2E HTTP/1.1\r\nCookie: a=1; b=2\r\nCookie: c=3\r\n\r\n",
    "head": "HEAD /account/sessions/42/end HTTP/1.1\r\n\r\n",
    "delete": "DELETE /oauth/clients/x HTTP/1.1\r\n\r\n",
    "bad-escape": "GET /email/verify/%zz HTTP/1.1\r\n\r\n",
    "json-body": "POST /native/redeem HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{\"token\":\"t\"}",
    "deferred-get": "GET /native/redeem/tok123 HTTP/1.1\r\n\r\n",
    "deferred-head": "HEAD /email/confirm/tok123 HTTP/1.1\r\n\r\n",
    "well-known": "GET /.well-known/openid-configuration HTTP/1.1\r\nAccept: application/json\r\n\r\n",
}
for name, text in requests.items():
    write("http-request", name, text)

# forms: first byte even = decode a body, odd = encode NUL-separated key/value strings
for name, body in {
    "simple": b"a=1&b=2&a=3",
    "escapes": b"email=ada%40example.com&name=Ada+Lovelace&q=%E2%9C%93%20ok",
    "empty-parts": b"&&a&=b&c=&",
    "plus-percent": b"redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1%2B2",
}.items():
    write("forms", "decode-" + name, b"\x00" + body)
for name, strings in {
    "pairs": ["a", "1", "state", "x&y=z", "name", "Ada Lovelace ✓"],
    "html": ["<script>", "\"quoted\" & 'single'", "&amp;", "é\u0301"],
}.items():
    write("forms", "encode-" + name, b"\x01" + b"\x00".join(s.encode() for s in strings))

# cookies: first byte even = parse Cookie header values (newline-separated), odd = build a Set-Cookie
for name, headers in {
    "browser": b"__Host-sid=abc123; csrf=\"tok\"; theme=dark",
    "two-headers": b"a=1; b=2\nb=3;c=4",
    "junk": b" ; =x; bad name=1; ok=v\x01; k=\"; q=a b",
}.items():
    write("cookies", "parse-" + name, b"\x00" + headers)
write("cookies", "build-host", b"\x05__Host-sid\x00abc\x00")        # flags: secure, default path
write("cookies", "build-attrs", b"\x3f" + b"sid\x00v\x00/p;x\x00example.com\x00\x80")

# json
for name, text in {
    "claims": '{"iss":"https://issuer.example","sub":"u1","aud":["a","b"],"exp":1800000300,"iat":1.5e9,"email_verified":"true"}',
    "nested": '{"a":[1,-0,0.5,1e-3,true,false,null,{"b":{"c":[]}}],"s":"\\u00e9\\ud83d\\ude00\\n\\"x\\""}',
    "scalar": '  -12.5e+3 ',
    "string": '"plain \\/ text"',
    "deep": "[" * 32 + "]" * 32,
    "jwks": '{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","kid":"k1"}]}',
}.items():
    write("json", name, text)

# jose: first byte % 3: 0 = raw token, 1 = header NUL payload (harness signs with Ed25519), 2 = base64url text
def token(header, payload, signature=b"\x01" * 64):
    return ".".join([b64(json.dumps(header, separators=(",", ":")).encode()), b64(json.dumps(payload, separators=(",", ":")).encode()), b64(signature)])

claims = {"iss": "https://issuer.example", "aud": "client-1", "sub": "user-1", "exp": 1800000300, "iat": 1799999900, "nbf": 1799999900}
write("jose", "raw-es256", b"\x00" + token({"alg": "ES256", "kid": "ec", "typ": "JWT"}, claims).encode())
write("jose", "raw-none", b"\x00" + token({"alg": "none"}, claims, b"x").encode())
write("jose", "raw-hs256", b"\x00" + token({"alg": "HS256", "kid": "rsa"}, claims).encode())
write("jose", "raw-crit", b"\x00" + token({"alg": "ES256", "crit": ["exp"], "exp": 1}, claims).encode())
write("jose", "signed-eddsa", b"\x01" + json.dumps({"alg": "EdDSA", "kid": "ed"}).encode() + b"\x00" + json.dumps(claims).encode())
write("jose", "signed-eddsa-aud-list", b"\x01" + b'{"alg":"EdDSA"}' + b"\x00" + json.dumps(dict(claims, aud=["x", "client-1"])).encode())
write("jose", "signed-es256-header", b"\x01" + b'{"alg":"ES256","kid":"ed"}' + b"\x00" + json.dumps(claims).encode())
write("jose", "base64url", b"\x02" + b"eyJhbGciOiJFUzI1NiJ9")

# jwk: one JWK or a JWKS
jwks = {
    "ec": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", "kid": "e1", "alg": "ES256", "use": "sig"},
    "ec-private": {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", "d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"},
    "okp": {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "o1"},
    "okp-private": {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"},
    "rsa": {"kty": "RSA", "e": "AQAB", "kid": "r1", "alg": "RS256", "n": "xTxfQ_CZweXgYJGUTUm4fGjrkFpqiKXzHq4fRAdbvqZN6F8TXmk352Ajudn4NcTp55VDhi6wPKs2neD4OI3RndWMI2Kxssx3gS9TmhZjD5CpgaDjHrY8QWJi2Ndmha6vGxsgOpMcYW0xDk2U3NznYvb8rYk82PsNpHDPVEorA-9vKQ2-vaAu8ioA6zIQ2AwxT9SIufhpUKiSrESrEEaRPOEIspO8dWlNj7lDBtI9Wb4Mr2kTMaGoBENdmTzhi2NNFfePMjBKpwXHgWvkLhP9lDD2ZI9YfyQ93t0jdXMS59nOa4usc4eFHro1uPste68u2ORxd-2JzUO8-QV1GUgr5w"},
    "oct": {"kty": "oct", "k": "c2VjcmV0"},
}
for name, jwk in jwks.items():
    write("jwk", name, json.dumps(jwk))
write("jwk", "set", json.dumps({"keys": [jwks["ec"], jwks["rsa"], jwks["okp"], jwks["oct"], {"kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"}]}))

# providers: first byte % 3: 0 = Apple user JSON, 1 = OIDC (token status, userinfo status, claims NUL token-response NUL userinfo),
# 2 = GitHub (user status, emails status, token response NUL /user NUL /user/emails)
write("providers", "apple-user", b"\x00" + json.dumps({"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email": "ada@privaterelay.appleid.com"}).encode())
oidc_claims = {"iss": "https://provider.example", "aud": "gatehouse", "sub": "s-1", "exp": 1800000300, "iat": 1799999990, "nonce": "NONCE"}
write("providers", "oidc-ok", b"\x01\x00\x00" + json.dumps(oidc_claims).encode() + b"\x00" + b'{"id_token":"ID_TOKEN","access_token":"at","refresh_token":"rt"}' + b"\x00" + b'{"sub":"s-1","email":"Ada@Example.com","email_verified":true,"name":"Ada"}')
write("providers", "oidc-email", b"\x01\x00\x00" + json.dumps(dict(oidc_claims, email="a@b.c", email_verified="true", aud=["x", "gatehouse"])).encode() + b"\x00" + b'{"id_token":"ID_TOKEN"}' + b"\x00")
write("providers", "oidc-error", b"\x01\x04\x00" + json.dumps(oidc_claims).encode() + b"\x00" + b'{"error":"invalid_grant"}' + b"\x00")
write("providers", "github-ok", b"\x02\x00\x00" + b'{"access_token":"gho_x","token_type":"bearer"}' + b"\x00" + b'{"id":12345,"login":"ada","name":"Ada"}' + b"\x00" + b'[{"email":"x@y.z","primary":false,"verified":true},{"email":"Ada@Example.com","primary":true,"verified":true}]')
write("providers", "github-error", b"\x02\x00\x00" + b'{"error":"bad_verification_code"}' + b"\x00\x00")
# Regression: a float GitHub id trapped Int64(_:) in GitHubProvider (found by this fuzzer).
write("providers", "github-float-id", b"\x02\x00\x00" + b'{"access_token":"t"}' + b"\x00" + b'{"id":1e300}' + b"\x00" + b'[{"email":"a@b.c","primary":true,"verified":true}]')

# oauth-params: presented redirect URI (also parsed as a scope) NUL registered URIs...
for name, strings in {
    "exact": ["com.example.app:/cb", "com.example.app:/cb", "https://app.example/cb"],
    "loopback-port": ["http://127.0.0.1:61234/cb?x=1", "http://127.0.0.1/cb?x=1"],
    "loopback-v6": ["http://[::1]:8080/", "http://[::1]:1/"],
    "userinfo": ["http://127.0.0.1:80@evil.example/cb", "http://127.0.0.1/cb"],
    "localhost": ["http://localhost:3000/cb", "http://localhost/cb", "https://h.example/#frag", "javascript:alert(1)"],
    "scope": ["openid email profile offline_access openid", "openid"],
}.items():
    write("oauth-params", name, b"\x00".join(s.encode() for s in strings))
# Regressions: an empty userinfo before a loopback host; a kid-less and an empty-kid copy of one key (the cache mixed them up).
write("oauth-params", "empty-userinfo", b"http://@[::1]\x00http://[::1]/")
write("jwk", "kid-empty-and-missing", json.dumps({"keys": [dict(jwks["okp"], kid=""), {k: v for k, v in jwks["okp"].items() if k != "kid"}]}))
write("oauth-params", "backslash-userinfo", b"http://evil.example\\@127.0.0.1/cb\x00http://127.0.0.1/cb")
# Regression (a harness false positive): a public key whose kid is "d" holds no private member.
write("jwk", "kid-named-d", json.dumps(dict(jwks["ec"], kid="d")))


# webauthn: a mode byte (0 CBOR, 1 COSE key, 2 authenticator data, 3 clientDataJSON NUL attestation
# object), seeded from the WebAuthn Level 3 specification's test vectors.
vectors = json.load(open(os.path.join(HERE, "..", "..", "Tests", "GatehouseIdentityTests", "WebAuthn", "Fixtures",
                                      "webauthn-test-vectors.json")))["vectors"]
for name in ("none-es256", "packed-self-es256", "packed-es256", "packed-rs256", "packed-eddsa"):
    registration, authentication = vectors[name]["registration"], vectors[name]["authentication"]
    attestation = bytes.fromhex(registration["attestationObject"])
    write("webauthn", name + "-cbor", b"\x00" + attestation)
    write("webauthn", name + "-assertion-data", b"\x02" + bytes.fromhex(authentication["authenticatorData"]))
    write("webauthn", name + "-registration", b"\x03" + bytes.fromhex(registration["clientDataJSON"]) + b"\x00" + attestation)
    # The COSE key: after rpIdHash, flags, counter, AAGUID, the id's length and the id (no extensions follow).
    at = attestation.index(b"authData") + len(b"authData")
    head = attestation[at]
    length, at = (attestation[at + 1], at + 2) if head == 0x58 else (int.from_bytes(attestation[at + 1:at + 3], "big"), at + 3)
    auth_data = attestation[at:at + length]
    id_length = int.from_bytes(auth_data[53:55], "big")
    write("webauthn", name + "-cose", b"\x01" + auth_data[55 + id_length:])
