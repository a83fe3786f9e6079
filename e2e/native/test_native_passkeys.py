"""The native passkey endpoints (`POST /native/passkey/options`, `POST /native/passkey`) with Yubico's `fido2` as the
independent side: its WebAuthn classes compose what iOS (`ASAuthorizationPlatformPublicKeyCredentialProvider`, origin
`https://<rp id>`) and Android Credential Manager (origin `android:apk-key-hash:<base64url SHA-256 of the signing
certificate>`) hand the app — client data, authenticator data, attestation object, COSE key — and its `Fido2Server`
verifies, a second time, the registration Gatehouse stored and every assertion Gatehouse accepted, with the credential
read back from Gatehouse's own database."""
import hashlib
import os
import re
import sqlite3

import pytest
import requests
from fido2 import cbor
from fido2.cose import CoseKey
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import Aaguid, AttestedCredentialData, AuthenticatorData, UserVerificationRequirement

from conftest import GatehouseProcess, free_port
from passkey_authenticator import FLAGS, Authenticator  # noqa: F401

PASSWORD = "correct horse battery"
APP = "passkey-app"
CERTIFICATE = hashlib.sha256(b"the app's signing certificate (DER)").digest()
FINGERPRINT = ":".join(f"{b:02X}" for b in CERTIFICATE)
ANDROID_ORIGIN = "android:apk-key-hash:" + websafe_encode(CERTIFICATE)


@pytest.fixture
def server():
    port = free_port()
    process = GatehouseProcess(port=port, extra_env={"GATEHOUSE_PUBLIC_URL": f"http://localhost:{port}"}, config={"clients": [
        {"id": APP, "name": "Passkey App", "type": "public", "redirect_uris": ["com.example.app:/oauth"], "first_party": True,
         "native": {"callback_schemes": ["exampleapp"], "apple_app_ids": ["ABCDE12345.com.example.app"],
                    "package_names": ["com.example.app"], "android_cert_fingerprints": [FINGERPRINT]}},
        {"id": "other-app", "name": "Other App", "type": "public", "redirect_uris": ["com.example.other:/oauth"], "first_party": True,
         "native": {"callback_schemes": ["otherapp"], "apple_app_ids": ["ABCDE12345.com.example.other"]}},
    ]})
    process.url = f"http://localhost:{port}"
    process.rp_id = "localhost"
    yield process
    process.stop()


def hidden(html, name):
    return re.search(r'name="%s" value="([^"]*)"' % name, html).group(1)


def account_with_passkey(server, email):
    """Signs up on the web pages, confirms the address, signs in and adds a passkey from /account; returns the
    authenticator and the registration fido2 composed."""
    web = requests.Session()
    page = web.get(server.url + "/sign-up")
    answer = web.post(server.url + "/sign-up", data={"csrf_token": hidden(page.text, "csrf_token"), "email": email, "name": "Ada",
                                                       "password": PASSWORD}, allow_redirects=False)
    assert answer.status_code == 303, answer.text[:300]
    page = web.get(server.url + "/sign-in")
    answer = web.post(server.url + "/sign-in", data={"csrf_token": hidden(page.text, "csrf_token"), "email": email,
                                                       "password": PASSWORD}, allow_redirects=False)
    assert answer.status_code == 303, answer.text[:300]
    # Confirmed in the signed-in session: the creator keeps the password.
    link = server.wait_for_link(email, "/email/verify/")
    confirm = web.get(link)
    verified = web.post(link, data={"csrf_token": hidden(confirm.text, "csrf_token")}, allow_redirects=False)
    assert verified.status_code == 303 and verified.headers["Location"].endswith("/account?notice=email-verified"), verified.text[:300]
    csrf = hidden(web.get(server.url + "/account").text, "csrf_token")
    options = web.post(server.url + "/account/passkeys/options", data={"csrf_token": csrf}).json()["publicKey"]
    authenticator = Authenticator(server.rp_id)
    client_data, attestation = authenticator.register(websafe_decode(options["challenge"]), websafe_decode(options["user"]["id"]), server.url)
    stored = web.post(server.url + "/account/passkeys", data={
        "csrf_token": csrf, "name": "fido2", "credential_id": websafe_encode(authenticator.credential_id),
        "client_data_json": websafe_encode(client_data), "attestation_object": websafe_encode(attestation), "transports": "internal"})
    assert stored.status_code == 200, stored.text
    # fido2's server verifies the same registration: Gatehouse's options were well-formed for an independent RP.
    fido = Fido2Server({"id": server.rp_id, "name": "Gatehouse"}, verify_origin=lambda origin: origin == server.url)
    state = {"challenge": options["challenge"], "user_verification": UserVerificationRequirement.REQUIRED}
    fido.register_complete(state, {"id": websafe_encode(authenticator.credential_id), "rawId": websafe_encode(authenticator.credential_id),
                                   "type": "public-key",
                                   "response": {"clientDataJSON": websafe_encode(client_data), "attestationObject": websafe_encode(attestation)}})
    return authenticator


def stored_credential(server, credential_id):
    """The credential as Gatehouse stored it, parsed by fido2 (AttestedCredentialData over the stored COSE key)."""
    with sqlite3.connect(os.path.join(server.dir, "gatehouse.sqlite")) as db:
        aaguid, public_key, count = db.execute("SELECT aaguid, public_key, sign_count FROM webauthn_credentials WHERE credential_id = ?",
                                               (credential_id,)).fetchone()
    return AttestedCredentialData.create(Aaguid(aaguid), credential_id, CoseKey.parse(cbor.decode(public_key))), count


def native_options(server, app=APP):
    answer = requests.post(server.url + "/native/passkey/options", json={"app": app})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["publicKey"]["rpId"] == server.rp_id and body["publicKey"]["userVerification"] == "required"
    return body["ceremony"], body["publicKey"]["challenge"]


def second_verification(server, authenticator, challenge, fields, origin):
    """fido2's Fido2Server checks the assertion Gatehouse accepted, with the key read back from Gatehouse's database."""
    credential, _ = stored_credential(server, authenticator.credential_id)
    fido = Fido2Server({"id": server.rp_id, "name": "Gatehouse"}, verify_origin=lambda o: o == origin)
    state = {"challenge": challenge, "user_verification": UserVerificationRequirement.REQUIRED}
    assert fido.authenticate_complete(state, [credential], {
        "id": fields["credential_id"], "rawId": fields["credential_id"], "type": "public-key",
        "response": {"clientDataJSON": fields["client_data_json"], "authenticatorData": fields["authenticator_data"],
                     "signature": fields["signature"], "userHandle": fields["user_handle"]}}).credential_id == authenticator.credential_id


def test_ios_and_android_assertions_sign_in_and_fido2_verifies_them(server):
    authenticator = account_with_passkey(server, "ada@example.com")
    credential, count = stored_credential(server, authenticator.credential_id)
    assert credential.public_key == authenticator.cose and count == 1

    # iOS: origin https://<rp id>; response=session, the cookie the app copies into the web view.
    ceremony, challenge = native_options(server)
    fields = authenticator.assert_(websafe_decode(challenge), f"https://{server.rp_id}")
    app = requests.Session()
    answer = app.post(server.url + "/native/passkey", json={"app": APP, "ceremony": ceremony, "response": "session", **fields})
    assert answer.status_code == 200, answer.text
    assert answer.json()["email"] == "ada@example.com" and "gatehouse_session" in app.cookies
    status = app.get(server.url + "/native/session").json()
    assert status["signed_in"] is True and status["email"] == "ada@example.com"
    second_verification(server, authenticator, challenge, fields, f"https://{server.rp_id}")

    # Android: Credential Manager's apk-key-hash origin; response=tokens.
    ceremony, challenge = native_options(server)
    fields = authenticator.assert_(websafe_decode(challenge), ANDROID_ORIGIN)
    answer = requests.post(server.url + "/native/passkey", data={"app": APP, "ceremony": ceremony, "response": "tokens", **fields})
    assert answer.status_code == 200, answer.text
    assert answer.json()["token_type"] in ("Bearer", "DPoP") and answer.json()["access_token"] and "Set-Cookie" not in answer.headers
    second_verification(server, authenticator, challenge, fields, ANDROID_ORIGIN)
    assert stored_credential(server, authenticator.credential_id)[1] == authenticator.counter


@pytest.mark.parametrize("attack", ["replayed", "web_origin", "unregistered_certificate", "wrong_rp_id", "no_user_presence",
                                    "no_user_verification", "counter_regression", "another_users_handle", "challenge_of_another_app",
                                    "challenge_of_the_web"])
def test_attacks_are_refused(server, attack):
    authenticator = account_with_passkey(server, "ada@example.com")
    ceremony, challenge = native_options(server)
    origin, options = f"https://{server.rp_id}", {}
    if attack == "replayed":
        fields = authenticator.assert_(websafe_decode(challenge), origin)
        assert requests.post(server.url + "/native/passkey", json={"app": APP, "ceremony": ceremony, **fields}).status_code == 200
    elif attack == "web_origin":
        origin = server.url
    elif attack == "unregistered_certificate":
        origin = "android:apk-key-hash:" + websafe_encode(hashlib.sha256(b"a repackaged app").digest())
    elif attack == "wrong_rp_id":
        options["rp_id"] = "evil.example"
    elif attack == "no_user_presence":
        options["flags"] = AuthenticatorData.FLAG.UV
    elif attack == "no_user_verification":
        options["flags"] = AuthenticatorData.FLAG.UP
    elif attack == "counter_regression":
        options["counter"] = 0
    elif attack == "another_users_handle":
        options["user_handle"] = account_with_passkey(server, "eve@example.com").user_handle
    elif attack == "challenge_of_another_app":
        _, challenge = native_options(server, app="other-app")
    elif attack == "challenge_of_the_web":
        web = requests.Session()
        csrf = hidden(web.get(server.url + "/sign-in").text, "csrf_token")
        challenge = web.post(server.url + "/passkeys/sign-in/options", data={"csrf_token": csrf}).json()["publicKey"]["challenge"]
    if attack != "replayed":
        fields = authenticator.assert_(websafe_decode(challenge), origin, **options)
    answer = requests.post(server.url + "/native/passkey", json={"app": APP, "ceremony": ceremony, "response": "session", **fields})
    assert answer.status_code == 400, (attack, answer.text)
    assert answer.json()["error"] == "invalid_grant" and answer.json()["error_description"]
    assert "Set-Cookie" not in answer.headers
