import Foundation
import GatehouseCrypto
import GatehouseIdentity
import Testing

/// The WebAuthn Level 3 specification's own test vectors (§ "Test Vectors"), extracted unchanged
/// into Fixtures/webauthn-test-vectors.json: each registration must verify and the following
/// authentication must verify with the key the registration produced; the ones outside what
/// Gatehouse accepts must be refused for the right reason.
@Suite struct WebAuthnTestVectorTests {
    struct Vector {
        let registration: RegistrationResponse
        let registrationChallenge: [UInt8]
        let assertion: AssertionResponse
        let assertionChallenge: [UInt8]
    }

    static let vectors: [String: Vector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/webauthn-test-vectors.json")
        guard let data = try? Data(contentsOf: url),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let all = root["vectors"] as? [String: [String: [String: String]]] else { return [:] }
        var result: [String: Vector] = [:]
        for (name, parts) in all {
            guard let registration = parts["registration"], let authentication = parts["authentication"] else { continue }
            func bytes(_ part: [String: String], _ key: String) -> [UInt8] { Hex.decode(part[key] ?? "") ?? [] }
            let credentialID = bytes(registration, "credential_id")
            result[name] = Vector(
                registration: RegistrationResponse(credentialID: credentialID, clientDataJSON: bytes(registration, "clientDataJSON"),
                                                   attestationObject: bytes(registration, "attestationObject")),
                registrationChallenge: bytes(registration, "challenge"),
                assertion: AssertionResponse(credentialID: credentialID, clientDataJSON: bytes(authentication, "clientDataJSON"),
                                             authenticatorData: bytes(authentication, "authenticatorData"),
                                             signature: bytes(authentication, "signature"), userHandle: nil),
                assertionChallenge: bytes(authentication, "challenge"))
        }
        return result
    }()

    let relyingParty = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://example.org"])

    @Test func theFixtureHoldsEveryVector() {
        #expect(Self.vectors.count == 15)
    }

    @Test(arguments: [
        ("none-es256", COSEAlgorithm.es256, "none"), ("packed-self-es256", .es256, "self"), ("none-es256-long-credential-id", .es256, "none"),
        ("packed-es256", .es256, "basic"), ("packed-rs256", .rs256, "basic"), ("packed-eddsa", .edDSA, "basic"),
    ])
    func registersAndThenAuthenticates(_ name: String, _ algorithm: COSEAlgorithm, _ attestation: String) throws {
        let vector = try #require(Self.vectors[name])
        let registered = try relyingParty.verifyRegistration(vector.registration, challengeHash: SHA256.hash(vector.registrationChallenge),
                                                             requireUserVerification: false)
        #expect(registered.algorithm == algorithm)
        #expect(registered.attestation == attestation)
        #expect(registered.credentialID == vector.registration.credentialID)
        let asserted = try relyingParty.verifyAssertion(vector.assertion, publicKey: registered.publicKey,
                                                        challengeHash: SHA256.hash(vector.assertionChallenge), requireUserVerification: false)
        #expect(asserted.signCount == 0)
        #expect(asserted.backupEligible == registered.backupEligible)

        // The same assertion against any other challenge, origin or RP ID fails.
        #expect(throws: WebAuthnRefusal.unknownChallenge) {
            try relyingParty.verifyAssertion(vector.assertion, publicKey: registered.publicKey,
                                             challengeHash: SHA256.hash(vector.registrationChallenge), requireUserVerification: false)
        }
        let otherOrigin = WebAuthnRelyingParty(id: "example.org", name: "Example", origins: ["https://login.example.org"])
        #expect(throws: WebAuthnRefusal.wrongOrigin) {
            try otherOrigin.verifyAssertion(vector.assertion, publicKey: registered.publicKey,
                                            challengeHash: SHA256.hash(vector.assertionChallenge), requireUserVerification: false)
        }
        let otherRP = WebAuthnRelyingParty(id: "login.example.org", name: "Example", origins: ["https://example.org"])
        #expect(throws: WebAuthnRefusal.wrongRelyingParty) {
            try otherRP.verifyAssertion(vector.assertion, publicKey: registered.publicKey,
                                        challengeHash: SHA256.hash(vector.assertionChallenge), requireUserVerification: false)
        }
        // A flipped signature bit fails.
        var tampered = vector.assertion
        tampered.signature[tampered.signature.count - 1] ^= 1
        #expect(throws: WebAuthnRefusal.invalidSignature) {
            try relyingParty.verifyAssertion(tampered, publicKey: registered.publicKey,
                                             challengeHash: SHA256.hash(vector.assertionChallenge), requireUserVerification: false)
        }
    }

    @Test(arguments: [
        ("none-es256-crossOrigin", WebAuthnRefusal.crossOrigin), ("none-es256-topOrigin", .crossOrigin),
        ("packed-es384", .unsupportedKey), ("packed-es512", .unsupportedKey), ("packed-ed448", .unsupportedKey),
        ("tpm-es256", .unsupportedAttestation), ("android-key-es256", .unsupportedAttestation),
        ("apple-es256", .unsupportedAttestation), ("fido-u2f-es256", .unsupportedAttestation),
    ])
    func refusesWhatItDoesNotAccept(_ name: String, _ refusal: WebAuthnRefusal) throws {
        let vector = try #require(Self.vectors[name])
        #expect(throws: refusal) {
            try relyingParty.verifyRegistration(vector.registration, challengeHash: SHA256.hash(vector.registrationChallenge),
                                                requireUserVerification: false)
        }
    }

    @Test func parsesTheVectorsAuthenticatorDataField(){
        let vector = Self.vectors["none-es256"]!
        let data = try? AuthenticatorData(vector.assertion.authenticatorData)
        #expect(data?.rpIDHash == SHA256.hash("example.org"))
        #expect(data?.userPresent == true)
        #expect(data?.attestedCredential == nil)
    }

    @Test func aTamperedPackedAttestationIsRefused() throws {
        for name in ["packed-self-es256", "packed-es256"] {
            var vector = try #require(Self.vectors[name])
            // Change one byte of the signed client data: the attestation signature no longer matches
            // (the challenge check passes because the challenge is unchanged).
            let text = String(decoding: vector.registration.clientDataJSON, as: UTF8.self)
            vector = Vector(
                registration: RegistrationResponse(credentialID: vector.registration.credentialID,
                                                   clientDataJSON: Array(text.replacingOccurrences(of: "future", with: "futurE").utf8),
                                                   attestationObject: vector.registration.attestationObject),
                registrationChallenge: vector.registrationChallenge, assertion: vector.assertion, assertionChallenge: vector.assertionChallenge)
            #expect(throws: WebAuthnRefusal.invalidAttestation, "\(name)") {
                try relyingParty.verifyRegistration(vector.registration, challengeHash: SHA256.hash(vector.registrationChallenge),
                                                    requireUserVerification: false)
            }
        }
    }
}
