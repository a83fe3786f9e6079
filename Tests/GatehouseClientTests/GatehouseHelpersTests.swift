import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import Testing

@Suite struct GatehouseHelpersTests {
    private let callback = URL(string: "myapp://auth-callback")!

    @Test func handOffTokenParsed() throws {
        #expect(try Handoff.parseCallback(URL(string: "myapp://auth-callback?token=t%2Bk-1")!, expected: callback) == "t+k-1")
    }

    @Test func handOffErrorSurfaces() {
        #expect(throws: HandoffError.provider(OAuthError(code: .accessDenied, description: "Cancelled by user"))) {
            try Handoff.parseCallback(URL(string: "myapp://auth-callback?error=access_denied&error_description=Cancelled%20by%20user")!, expected: callback)
        }
    }

    @Test func handOffRejectsOddCallbacks() {
        #expect(throws: HandoffError.tokenMissing) { try Handoff.parseCallback(URL(string: "myapp://auth-callback")!) }
        #expect(throws: HandoffError.parameterRepeated("token")) { try Handoff.parseCallback(URL(string: "myapp://auth-callback?token=a&token=b")!) }
        #expect(throws: HandoffError.unexpectedCallback) { try Handoff.parseCallback(URL(string: "otherapp://auth-callback?token=a")!, expected: callback) }
    }

    @Test func redeemURLBuilt() throws {
        let verifier = Handoff.makeVerifier()
        let url = Handoff.redeemURL(base: URL(string: "https://app.example.com/")!, token: "tok/1", verifier: verifier.verifier)
        #expect(url.absoluteString == "https://app.example.com/native/redeem?token=tok%2F1&verifier=\(verifier.verifier)")
        #expect(verifier.challenge == PKCE.challenge(for: verifier.verifier))
    }

    @Test func redeemPathFromWebKeepsItsQueryAndStaysOnOrigin() throws {
        let base = URL(string: "https://app.example.com/sign-in")!
        let url = try #require(Handoff.redeemURL(base: base, redeemPath: "/native/redeem?verifier=abc", token: "t1"))
        #expect(url.absoluteString == "https://app.example.com/native/redeem?verifier=abc&token=t1")
        #expect(Handoff.redeemURL(base: base, redeemPath: "https://evil.example.com/steal", token: "t1") == nil)
    }

    @Test func appleNonceHashIsSHA256Hex() {
        let nonce = AppleNonce(raw: "abc")
        #expect(nonce.sha256Hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(AppleNonce().raw != AppleNonce().raw)
    }

    @Test func nativeAppleRequestBody() throws {
        let request = try NativeAppleSignInRequest(
            identityToken: "eyJ.id.tok", authorizationCode: "c0de", rawNonce: "raw", givenName: "Ann", familyName: nil,
            app: "com.example.app", response: .tokens
        ).urlRequest(base: URL(string: "https://app.example.com")!)
        #expect(request.url?.absoluteString == "https://app.example.com/native/apple")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let body = try #require(JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: String])
        #expect(body == [
            "identity_token": "eyJ.id.tok", "authorization_code": "c0de", "raw_nonce": "raw",
            "given_name": "Ann", "app": "com.example.app", "response": "tokens",
        ])
    }

    @Test func nativeAppleSessionCookiesExtracted() async throws {
        let transport = StubTransport { _ in
            StubTransport.Reply(status: 200, body: Data("{}".utf8), headers: ["Set-Cookie": "__Host-session=abc; Path=/; Secure; HttpOnly; SameSite=Lax"])
        }
        let (tokens, response) = try await NativeAppleSignInRequest(
            identityToken: "t", authorizationCode: "c", rawNonce: "n", app: "com.example.app", response: .session
        ).send(base: URL(string: "https://app.example.com")!, transport: transport)
        #expect(tokens == nil)
        let cookies = NativeAppleSignInRequest.cookies(from: response)
        #expect(cookies.map(\.name) == ["__Host-session"])
        #expect(cookies.first?.value == "abc")
    }
}
