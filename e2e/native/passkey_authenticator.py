"""A platform passkey authenticator composed from Yubico's `fido2` classes, for the native passkey tests: what iOS
(`ASAuthorizationPlatformPublicKeyCredentialProvider`) or Android's Credential Manager hands the app, with the origin
each platform writes into the client data."""
import hashlib
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import websafe_encode
from fido2.webauthn import Aaguid, AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData

FLAGS = AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV


class Authenticator:
    """A platform authenticator composed from fido2's classes: an ES256 key from `cryptography`, the attested
    credential data, authenticator data and client data exactly as fido2 encodes them."""

    def __init__(self, rp_id):
        self.rp_id = rp_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.cose = ES256.from_cryptography_key(self.key.public_key())
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle = None

    def register(self, challenge, user_handle, origin):
        self.user_handle = user_handle
        self.counter += 1
        attested = AttestedCredentialData.create(Aaguid.NONE, self.credential_id, self.cose)
        auth_data = AuthenticatorData.create(hashlib.sha256(self.rp_id.encode()).digest(), FLAGS | AuthenticatorData.FLAG.AT,
                                             self.counter, attested)
        client_data = CollectedClientData.create("webauthn.create", challenge, origin)
        return client_data, AttestationObject.create("none", auth_data, {})

    def assert_(self, challenge, origin, flags=FLAGS, rp_id=None, counter=None, user_handle=None):
        self.counter = self.counter + 1 if counter is None else counter
        auth_data = AuthenticatorData.create(hashlib.sha256((rp_id or self.rp_id).encode()).digest(), flags, self.counter)
        client_data = CollectedClientData.create("webauthn.get", challenge, origin)
        signature = self.key.sign(auth_data + client_data.hash, ec.ECDSA(hashes.SHA256()))
        return {"credential_id": websafe_encode(self.credential_id), "client_data_json": websafe_encode(client_data),
                "authenticator_data": websafe_encode(auth_data), "signature": websafe_encode(signature),
                "user_handle": websafe_encode(user_handle or self.user_handle)}
