import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import Testing

/// `AppleSimulator.nativeAuthorization`: what Apple's SDK gives an iOS app, minted without a page.
@Suite struct AppleNativeSimulatorTests {
    static let bundleID = "com.example.other"   // registered in the fixture with the team key

    @Test func identityTokenIsSignedForTheBundleWithTheHashedNonce() async throws {
        let fixture = try SimulatorFixture()
        let nonceHash = AppleSimulator.nonceHash("raw-nonce-1")
        #expect(nonceHash == SHA256.hex("raw-nonce-1") && nonceHash == nonceHash.lowercased() && nonceHash.utf8.count == 64)
        let native = try fixture.simulator.apple.nativeAuthorization(bundleID: Self.bundleID, email: "Ada@Example.com",
                                                                      name: "Ada Lovelace", nonceSHA256Hex: nonceHash)
        let claims = try await fixture.verify(native.identityToken, jwksPath: "/_sim/apple/auth/keys", issuer: AppleSimulator.issuer,
                                              audience: Self.bundleID)
        #expect(claims.all["nonce"]?.stringValue == nonceHash)
        #expect(claims.subject == native.user && claims.subject == fixture.simulator.apple.subject(forEmail: "ada@example.com"))
        #expect(claims.all["email"]?.stringValue == "ada@example.com")
        #expect(claims.all["email_verified"] == .string("true") && claims.all["is_private_email"] == .string("false"))
        #expect(native.givenName == "Ada" && native.familyName == "Lovelace")
    }

    @Test func privateRelayHidesTheAddress() async throws {
        let fixture = try SimulatorFixture()
        let native = try fixture.simulator.apple.nativeAuthorization(bundleID: Self.bundleID, email: "ada@example.com",
                                                                      nonceSHA256Hex: nil, privateRelay: true)
        let claims = try await fixture.verify(native.identityToken, jwksPath: "/_sim/apple/auth/keys", issuer: AppleSimulator.issuer,
                                              audience: Self.bundleID)
        #expect(native.email.hasSuffix("@privaterelay.appleid.com") && claims.all["email"]?.stringValue == native.email)
        #expect(claims.all["is_private_email"] == .string("true") && claims.all["nonce"] == nil)
    }

    @Test func codeIsRedeemedOnceAsTheAppWithoutRedirectURI() async throws {
        let fixture = try SimulatorFixture()
        let native = try fixture.simulator.apple.nativeAuthorization(bundleID: Self.bundleID, email: "ada@example.com",
                                                                      nonceSHA256Hex: AppleSimulator.nonceHash("n"))
        let secret = try fixture.appleClientSecret(sub: Self.bundleID)
        let fields = [("client_id", Self.bundleID), ("client_secret", secret), ("code", native.authorizationCode),
                      ("grant_type", "authorization_code")]
        let first = try await fixture.appleToken(fields)
        #expect(first.status == 200 && first.json["refresh_token"]?.stringValue != nil)
        let idToken = try #require(first.json["id_token"]?.stringValue)
        let claims = try await fixture.verify(idToken, jwksPath: "/_sim/apple/auth/keys", issuer: AppleSimulator.issuer,
                                              audience: Self.bundleID)
        #expect(claims.subject == native.user)
        let again = try await fixture.appleToken(fields)
        #expect(again.status == 400 && again.json["error"]?.stringValue == "invalid_grant")
    }

    @Test func codeIsRefusedForAnotherClientOrSecret() async throws {
        let fixture = try SimulatorFixture()
        let native = try fixture.simulator.apple.nativeAuthorization(bundleID: Self.bundleID, email: "ada@example.com", nonceSHA256Hex: nil)
        // The web Services ID cannot redeem the app's code…
        let web = try await fixture.appleToken([("client_id", SimulatorFixture.appleClientID),
                                                ("client_secret", try fixture.appleClientSecret()),
                                                ("code", native.authorizationCode), ("grant_type", "authorization_code")])
        #expect(web.status == 400 && web.json["error"]?.stringValue == "invalid_grant")
        // …and a secret whose sub is not the bundle id fails client authentication.
        let other = try fixture.simulator.apple.nativeAuthorization(bundleID: Self.bundleID, email: "ada@example.com", nonceSHA256Hex: nil)
        let wrongSub = try await fixture.appleToken([("client_id", Self.bundleID), ("client_secret", try fixture.appleClientSecret()),
                                                     ("code", other.authorizationCode), ("grant_type", "authorization_code")])
        #expect(wrongSub.status == 400 && wrongSub.json["error"]?.stringValue == "invalid_client")
    }

    @Test func unregisteredBundleGetsATokenButNoRedeemableCode() async throws {
        let fixture = try SimulatorFixture()
        let native = try fixture.simulator.apple.nativeAuthorization(bundleID: "com.attacker.app", email: "ada@example.com", nonceSHA256Hex: nil)
        _ = try await fixture.verify(native.identityToken, jwksPath: "/_sim/apple/auth/keys", issuer: AppleSimulator.issuer,
                                     audience: "com.attacker.app")
        let answer = try await fixture.appleToken([("client_id", "com.attacker.app"),
                                                   ("client_secret", try fixture.appleClientSecret(sub: "com.attacker.app")),
                                                   ("code", native.authorizationCode), ("grant_type", "authorization_code")])
        #expect(answer.status == 400 && answer.json["error"]?.stringValue == "invalid_client")
    }

    @Test func demoSetupRegistersTheNativeBundle() throws {
        let demo = try ProviderSimulator.Configuration.demo(baseURL: "http://127.0.0.1:8080/_sim", appleRedirectURI: "http://x/cb",
                                                            googleRedirectURI: "http://x/g", githubRedirectURI: "http://x/gh")
        let native = try #require(demo.configuration.appleClients.first { $0.clientID == DemoSetup.nativeBundleID })
        #expect(native.teamID == demo.apple.teamID && native.keyID == demo.apple.keyID)
    }
}
