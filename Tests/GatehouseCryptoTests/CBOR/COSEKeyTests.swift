import GatehouseCrypto
import Testing

/// COSE_Key maps built from keys OpenSSL generated, the way an authenticator encodes them.
enum COSEFixtures {
    static func coseKey(for key: SigningKey) -> CBORValue {
        let jwk = key.publicJWK
        switch key.algorithm {
        case .es256:
            return .map([CBORMapEntry(.integer(1), .integer(2)), CBORMapEntry(.integer(3), .integer(-7)),
                         CBORMapEntry(.integer(-1), .integer(1)), CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.x!)!)),
                         CBORMapEntry(.integer(-3), .bytes(Base64URL.decode(jwk.y!)!))])
        case .edDSA:
            return .map([CBORMapEntry(.integer(1), .integer(1)), CBORMapEntry(.integer(3), .integer(-8)),
                         CBORMapEntry(.integer(-1), .integer(6)), CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.x!)!))])
        default:
            return .map([CBORMapEntry(.integer(1), .integer(3)), CBORMapEntry(.integer(3), .integer(-257)),
                         CBORMapEntry(.integer(-1), .bytes(Base64URL.decode(jwk.modulus!)!)),
                         CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.exponent!)!))])
        }
    }

    /// A WebAuthn signature: DER for ES256 (the JWS signer returns raw r ‖ s).
    static func webAuthnSignature(_ key: SigningKey, _ message: [UInt8]) throws -> [UInt8] {
        let signature = try key.sign(message)
        guard key.algorithm == .es256 else { return signature }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}

@Suite struct COSEKeyTests {
    @Test(arguments: [JWSAlgorithm.es256, .edDSA, .rs256])
    func verifiesWhatTheMatchingPrivateKeySigned(_ algorithm: JWSAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let cose = try COSEKey(bytes: CBOREncoder.encode(COSEFixtures.coseKey(for: key)))
        let message = Array("authenticator data and client data hash".utf8)
        let signature = try COSEFixtures.webAuthnSignature(key, message)
        #expect(cose.isValidSignature(signature, for: message))
        #expect(!cose.isValidSignature(signature, for: message + [0]))
        let other = try SigningKey.generate(algorithm)
        #expect(!cose.isValidSignature(try COSEFixtures.webAuthnSignature(other, message), for: message))
    }

    @Test func es256RefusesTheRawJWSFormAndGarbage() throws {
        let key = try SigningKey.generate(.es256)
        let cose = try COSEKey(cbor: COSEFixtures.coseKey(for: key))
        let message: [UInt8] = [1, 2, 3]
        #expect(!cose.isValidSignature(try key.sign(message), for: message), "WebAuthn ES256 signatures are DER")
        #expect(!cose.isValidSignature([], for: message))
        #expect(!cose.isValidSignature([0x30, 0x00], for: message))
    }

    @Test func refusesMismatchedOrUnsupportedKeys() throws {
        let ec = try SigningKey.generate(.es256)
        guard case .map(var entries) = COSEFixtures.coseKey(for: ec) else { Issue.record("not a map"); return }
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
