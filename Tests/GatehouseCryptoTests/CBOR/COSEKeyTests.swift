import GatehouseCrypto
import GatehouseWebAuthnTesting
import Testing

/// The COSE_Key maps and signatures come from the software authenticator (`GatehouseWebAuthnTesting`), so these
/// tests and the relying party's check one encoding, the way an authenticator writes it.
@Suite struct COSEKeyTests {
    @Test(arguments: [JWSAlgorithm.es256, .edDSA, .rs256])
    func verifiesWhatTheMatchingPrivateKeySigned(_ algorithm: JWSAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let cose = try COSEKey(bytes: CBOREncoder.encode(SoftwareAuthenticator.coseKeyMap(key)))
        let message = Array("authenticator data and client data hash".utf8)
        let signature = try SoftwareAuthenticator.webAuthnSignature(key, message)
        #expect(cose.isValidSignature(signature, for: message))
        #expect(!cose.isValidSignature(signature, for: message + [0]))
        let other = try SigningKey.generate(algorithm)
        #expect(!cose.isValidSignature(try SoftwareAuthenticator.webAuthnSignature(other, message), for: message))
    }

    @Test func es256RefusesTheRawJWSFormAndGarbage() throws {
        let key = try SigningKey.generate(.es256)
        let cose = try COSEKey(cbor: SoftwareAuthenticator.coseKeyMap(key))
        let message: [UInt8] = [1, 2, 3]
        #expect(!cose.isValidSignature(try key.sign(message), for: message), "WebAuthn ES256 signatures are DER")
        #expect(!cose.isValidSignature([], for: message))
        #expect(!cose.isValidSignature([0x30, 0x00], for: message))
    }

    @Test func refusesMismatchedOrUnsupportedKeys() throws {
        let ec = try SigningKey.generate(.es256)
        guard case .map(var entries) = SoftwareAuthenticator.coseKeyMap(ec) else { Issue.record("not a map"); return }
        // EC2 key claiming EdDSA.
        var wrongAlg = entries
        wrongAlg[1] = CBORMapEntry(.integer(3), .integer(-8))
        #expect(throws: COSEKeyError.keyTypeMismatch) { try COSEKey(cbor: .map(wrongAlg)) }
        // ES384 is not offered.
        var es384 = entries
        es384[1] = CBORMapEntry(.integer(3), .integer(-35))
        #expect(throws: COSEKeyError.unsupportedAlgorithm(-35)) { try COSEKey(cbor: .map(es384)) }
        // P-384 curve id under ES256.
        var wrongCurve = entries
        wrongCurve[2] = CBORMapEntry(.integer(-1), .integer(2))
        #expect(throws: COSEKeyError.keyTypeMismatch) { try COSEKey(cbor: .map(wrongCurve)) }
        // A point off the curve.
        entries[4] = CBORMapEntry(.integer(-3), .bytes([UInt8](repeating: 7, count: 32)))
        #expect(throws: COSEKeyError.invalidKey) { try COSEKey(cbor: .map(entries)) }
        #expect(throws: COSEKeyError.malformed("not a map")) { try COSEKey(cbor: .array([])) }
    }

    @Test func refusesRSAKeysBelow2048Bits() throws {
        let weak = CBORValue.map([CBORMapEntry(.integer(1), .integer(3)), CBORMapEntry(.integer(3), .integer(-257)),
                                  CBORMapEntry(.integer(-1), .bytes([0xc5] + [UInt8](repeating: 0x11, count: 127))),
                                  CBORMapEntry(.integer(-2), .bytes([1, 0, 1]))])
        #expect(throws: COSEKeyError.invalidKey) { try COSEKey(cbor: weak) }
    }
}
