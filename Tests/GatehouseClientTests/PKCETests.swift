import Foundation
import GatehouseClient
import Testing

@Suite struct PKCETests {
    @Test func rfc7636AppendixB() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func generatedVerifierIsValidAndUnique() {
        let first = PKCE(), second = PKCE()
        #expect(PKCE.isValidVerifier(first.verifier))
        #expect(first.verifier.count == 43)
        #expect(first.verifier != second.verifier)
        #expect(first.challenge == PKCE.challenge(for: first.verifier))
    }

    @Test(arguments: [
        String(repeating: "a", count: 42),   // too short
        String(repeating: "a", count: 129),  // too long
        String(repeating: "a", count: 42) + "+", // outside the unreserved set
        String(repeating: "a", count: 42) + "é",
    ])
    func invalidVerifiersRejected(verifier: String) {
        #expect(throws: PKCEError.invalidVerifier) { try PKCE(verifier: verifier) }
    }

    @Test func boundaryLengthsAccepted() throws {
        _ = try PKCE(verifier: String(repeating: "~", count: 43))
        _ = try PKCE(verifier: String(repeating: "-._~aZ09", count: 16))
    }

    @Test func base64URLRoundTripAndRejectsStandardAlphabet() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x00, 0x01]
        let encoded = Base64URL.encode(bytes)
        #expect(encoded == "-__-AAE")
        #expect(Base64URL.decode(encoded) == Data(bytes))
        #expect(Base64URL.decode("+//+AAE") == nil)
    }
}
