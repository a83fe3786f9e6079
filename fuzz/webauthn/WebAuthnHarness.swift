import FuzzSupport
import GatehouseCrypto
import GatehouseIdentity

/// WebAuthn's binary formats: CBOR, COSE keys, authenticator data, attestation objects with client
/// data. The first byte picks the parser; the rest is its input.
///
/// Properties: an accepted CBOR item re-encodes to exactly the input (the decoder accepts only the
/// shortest, definite-length form, so there is one encoding per value) and `decodePrefix` ends where
/// the item does; an imported COSE key has the key type its algorithm needs; parsed authenticator
/// data is the whole input, has attested credential data exactly when AT is set, extensions exactly
/// when ED is set, a credential id of 1…1023 bytes and a COSE key that is one CBOR item; a
/// registration that verifies answered the challenge in its client data from `https://example.org`
/// for RP ID `example.org` with UP set, and names the credential id the attestation holds.
func fuzzWebAuthn(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = ByteReader(bytes(data, size))
    let mode = reader.choice(4)
    let input = Array(reader.rest())
    switch mode {
    case 0: checkCBOR(input)
    case 1: checkCOSE(input)
    case 2: checkAuthenticatorData(input)
    default: checkRegistration(input)
    }
    return 0
}

private func checkCBOR(_ input: [UInt8]) {
    guard let value = try? CBORDecoder.decode(input) else { return }
    require(CBOREncoder.encode(value) == input, "an accepted CBOR item does not re-encode to its input")
    let prefixed = try? CBORDecoder.decodePrefix(input + [0x00], from: 0)
    require(prefixed?.0 == value && prefixed?.1 == input.count, "decodePrefix disagrees with decode")
}

private func checkCOSE(_ input: [UInt8]) {
    guard let key = try? COSEKey(bytes: input) else { return }
    let expected: String
    switch key.algorithm {
    case .es256: expected = "EC"
    case .edDSA: expected = "OKP"
    case .rs256: expected = "RSA"
    }
    require(key.jwk.keyType == expected, "a \(key.algorithm) COSE key imported as kty \(key.jwk.keyType)")
    require(!key.isValidSignature([], for: input), "an empty signature verified")
}

private func checkAuthenticatorData(_ input: [UInt8]) {
    guard let parsed = try? AuthenticatorData(input) else { return }
    require(parsed.raw == input && parsed.rpIDHash == Array(input.prefix(32)), "authenticator data is not its input")
    require((parsed.flags & AuthenticatorData.flagAT != 0) == (parsed.attestedCredential != nil), "AT flag and attested data disagree")
    require((parsed.flags & AuthenticatorData.flagED != 0) == (parsed.extensions != nil), "ED flag and extensions disagree")
    if let credential = parsed.attestedCredential {
        require((1...AuthenticatorData.maximumCredentialIDLength).contains(credential.credentialID.count), "credential id length")
        require(credential.aaguid.count == 16, "AAGUID length")
        require((try? CBORDecoder.decode(credential.publicKey)) != nil, "the credential key is not one CBOR item")
    }
}

private let relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Fuzz", origins: ["https://example.org"])

private func checkRegistration(_ input: [UInt8]) {
    var reader = ByteReader(input)
    let clientDataJSON = Array(reader.part(until: 0))
    let attestationObject = Array(reader.rest())
    guard let clientData = try? CollectedClientData(json: clientDataJSON) else {
        _ = try? AttestationObject(attestationObject)
        return
    }
    let credentialID = (try? AttestationObject(attestationObject))?.authenticatorData.attestedCredential?.credentialID ?? []
    let response = RegistrationResponse(credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject)
    guard let verified = try? relyingParty.verifyRegistration(response, challengeHash: SHA256.hash(clientData.challenge),
                                                              requireUserVerification: false) else { return }
    require(clientData.type == "webauthn.create" && clientData.origin == "https://example.org" && !clientData.crossOrigin,
            "a registration verified with the wrong client data")
    let object = try? AttestationObject(attestationObject)
    require(object?.authenticatorData.rpIDHash == SHA256.hash("example.org"), "a registration for another RP ID verified")
    require(object?.authenticatorData.userPresent == true, "a registration without UP verified")
    require(verified.credentialID == credentialID, "the verified credential id is not the attested one")
}
