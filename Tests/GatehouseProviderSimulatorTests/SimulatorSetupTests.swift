import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import GatehouseTesting
import Testing

@Suite struct SimulatorSetupTests {
    @Test func demoSetupWiresBothSidesTogether() async throws {
        let demo = try ProviderSimulator.Configuration.demo(
            baseURL: "http://127.0.0.1:8080/_sim", appleRedirectURI: "http://127.0.0.1:8080/auth/apple/callback",
            googleRedirectURI: "http://127.0.0.1:8080/auth/google/callback", githubRedirectURI: "http://127.0.0.1:8080/auth/github/callback")
        var configuration = demo.configuration
        configuration.appleSigningKey = SharedKeys.appleRSA
        configuration.googleSigningKey = SharedKeys.googleRSA
        let simulator = try ProviderSimulator(configuration: configuration)
        #expect(demo.apple.authorizationEndpoint == simulator.apple.authorizationEndpoint)
        #expect(demo.apple.tokenEndpoint == simulator.apple.tokenEndpoint)
        #expect(demo.apple.jwksURI == simulator.apple.jwksURI)
        #expect(demo.apple.revocationEndpoint == simulator.apple.revocationEndpoint)
        #expect(demo.apple.issuer == "https://appleid.apple.com")
        #expect(demo.google.discoveryURL == simulator.google.discoveryURL)
        #expect(demo.google.tokenEndpoint == simulator.google.tokenEndpoint)
        #expect(demo.google.userinfoEndpoint == simulator.google.userinfoEndpoint)
        #expect(demo.github.tokenEndpoint == simulator.github.tokenEndpoint)
        #expect(demo.github.apiBaseURL == simulator.github.apiBaseURL)

        // The Gatehouse side's .p8 PEM mints a client secret the simulator accepts.
        #expect(demo.apple.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try SigningKey(pem: demo.apple.privateKeyPEM)
        let now = Int64(Date().timeIntervalSince1970)
        let secret = try JWTSigner.sign(["iss": .string(demo.apple.teamID), "sub": .string(demo.apple.clientID),
                                         "aud": .string("https://appleid.apple.com"), "iat": .integer(now), "exp": .integer(now + 300)],
                                        with: key, keyID: demo.apple.keyID)
        let client = InProcessClient(RequestPipeline(router: simulator.makeRouter()))
        let revoke = try await client.post("/_sim/apple/auth/revoke", form: [("client_id", demo.apple.clientID), ("client_secret", secret), ("token", "x")])
        #expect(revoke.status == 200)
        #expect(simulator.apple.revocations.count == 1)
    }

    @Test func mountsUnderItsPrefixBesideOtherRoutes() async throws {
        let simulator = try ProviderSimulator(configuration: .init(baseURL: "https://demo.example/providers/",
                                                                   appleSigningKey: SharedKeys.appleRSA, googleSigningKey: SharedKeys.googleRSA))
        #expect(simulator.configuration.pathPrefix == "/providers")
        #expect(simulator.google.jwksURI == "https://demo.example/providers/google/certs")
        var router = Router()
        router.get("/") { _ in .text("host app") }
        simulator.register(into: &router)
        let client = InProcessClient(RequestPipeline(router: router))
        #expect(try await client.get("/").text == "host app")
        #expect(try await client.get("/providers/apple/auth/keys").status == 200)
        #expect(try await client.get("/providers/google/certs").status == 200)
        #expect(try await client.get("/_sim/google/certs").status == 404)
    }

    @Test func storesAreBoundedAndExpire() {
        let store = ExpiringStore<Int>(capacity: 2)
        let now = Date(timeIntervalSince1970: 1_000)
        store.put("a", 1, expiresAt: now.addingTimeInterval(10), now: now)
        store.put("b", 2, expiresAt: now.addingTimeInterval(20), now: now)
        store.put("c", 3, expiresAt: now.addingTimeInterval(30), now: now)
        #expect(store.count == 2)
        #expect(store.get("a", now: now) == nil, "the entry closest to expiry made room")
        #expect(store.take("b", now: now) == 2)
        #expect(store.take("b", now: now) == nil)
        #expect(store.get("c", now: now.addingTimeInterval(31)) == nil)
    }

    @Test func rsaSigningKeySignsVerifiableRS256() throws {
        let key = SharedKeys.appleRSA
        #expect(key.publicJWK.algorithm == "RS256")
        #expect(key.publicJWK.privateKey == nil)
        let token = try key.signJWT(["sub": .string("x"), "exp": .integer(Int64(Date().timeIntervalSince1970) + 60)])
        let verified = try JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: nil, audiences: nil))
            .verify(token, key: try VerificationKey(jwk: key.publicJWK))
        #expect(verified.claims.subject == "x")
        #expect(verified.header.keyID == key.keyID)
        var tampered = Array(token.utf8)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: JOSEError.self) {
            try JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: nil, audiences: nil))
                .verify(String(decoding: tampered, as: UTF8.self), key: try VerificationKey(jwk: key.publicJWK))
        }
    }

    @Test func pickerIsAPlainAccessibleFormWithTheRequestInHiddenInputs() async throws {
        let fixture = try SimulatorFixture()
        let page = try await fixture.client.get("/_sim/apple/auth/authorize?" + URLEncodedForm(pairs: [
            ("client_id", SimulatorFixture.appleClientID), ("redirect_uri", SimulatorFixture.appleRedirect),
            ("response_type", "code"), ("response_mode", "form_post"), ("scope", "name email"), ("state", "<script>"),
        ]).encoded)
        #expect(page.text.contains(#"<label for="email">Email</label>"#))
        #expect(page.text.contains(#"name="private_relay""#))
        #expect(page.text.contains(#"value="cancel""#))
        #expect(!page.text.contains("<script>"), "parameters are escaped")
        #expect(HTML.hiddenFields(page.text).contains { $0 == ("state", "<script>") })
        // A bad email is refused with a page, not a crash.
        let bad = try await fixture.client.post("/_sim/apple/auth/authorize/complete",
                                                form: HTML.hiddenFields(page.text) + [("email", "nope"), ("action", "allow")])
        #expect(bad.status == 400)
    }
}
