import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// RFC 8693 exchange and `POST /native/apple` follow client policy.
@Suite struct TokenExchangePolicyAttackTests {
    static func exchange(_ token: String, client: String = NativeAppleSignInTests.app) -> [(String, String)] {
        [("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("client_id", client),
         ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("subject_token", token),
         ("raw_nonce", NativeAppleSignInTests.rawNonce)]
    }

    @Test func theSameIdentityTokenSignsInOnce() async throws {
        let harness = try await NativeAppleSignInTests.harness()
        let native = try NativeAppleSignInTests.authorization(harness)
        let first = try await harness.browser().post("/oauth/token", Self.exchange(native.identityToken))
        #expect(first.status == 200)
        let again = try await harness.browser().post("/oauth/token", Self.exchange(native.identityToken))
        #expect(again.status == 400 && NativeAppleSignInTests.json(again)["error"]?.stringValue == "invalid_grant")
        // …and not through /native/apple either.
        let other = try NativeAppleSignInTests.authorization(harness, rawNonce: "x-raw-nonce-0123456789abcdef")
        var fields = NativeAppleSignInTests.fields(other)
        fields["identity_token"] = native.identityToken   // the first token, with its own raw nonce
        let viaNative = try await NativeAppleSignInTests.postJSON(harness.browser(), fields)
        #expect(viaNative.status == 400 && viaNative.headers["Set-Cookie"] == nil)
    }

    @Test func exchangeNeedsTheRegisteredGrant() async throws {
        let harness = try await NativeAppleSignInTests.harness()
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "no-exchange", name: "App", kind: .public, redirectURIs: ["com.example.noexchange:/cb"], firstParty: true,
            metadata: #"{"callback_schemes": ["noexchange"], "bundle_ids": ["\#(NativeAppleSignInTests.bundleID)"]}"#))
        let native = try NativeAppleSignInTests.authorization(harness)
        let refused = try await harness.browser().post("/oauth/token", Self.exchange(native.identityToken, client: "no-exchange"))
        #expect(refused.status == 400 && NativeAppleSignInTests.json(refused)["error"]?.stringValue == "unauthorized_client")
        #expect(try await harness.users() == 0, "refused before anything is written")
    }

    @Test func thirdPartyAndConfidentialClientsFollowPolicy() async throws {
        let harness = try await NativeAppleSignInTests.harness()
        let metadata = #"{"callback_schemes": ["partnerapp"], "bundle_ids": ["\#(NativeAppleSignInTests.bundleID)"]}"#
        _ = try await harness.app.services.tokens.registry.register(ClientRegistration(
            id: "partner-app", name: "Partner", kind: .public, redirectURIs: ["com.example.partner:/cb"],
            grantTypes: ["authorization_code", "urn:ietf:params:oauth:grant-type:token-exchange"], metadata: metadata))
        let native = try NativeAppleSignInTests.authorization(harness)
        let thirdParty = try await harness.browser().post("/oauth/token", Self.exchange(native.identityToken, client: "partner-app"))
        #expect(thirdParty.status == 400 && NativeAppleSignInTests.json(thirdParty)["error"]?.stringValue == "access_denied",
                "no consent was ever given to this third party: \(thirdParty.text)")

        let secret = String(repeating: "k", count: 40)
        try await harness.app.services.tokens.registry.apply(ClientRegistration(
            id: "conf-app", name: "Confidential", kind: .confidential, redirectURIs: ["https://conf.example/cb"], firstParty: true,
            metadata: #"{"callback_schemes": ["confapp"], "bundle_ids": ["\#(NativeAppleSignInTests.bundleID)"]}"#), secret: secret)
        let nonce = "confidential-raw-nonce-0123456789"
        let other = try NativeAppleSignInTests.authorization(harness, rawNonce: nonce)
        let unauthenticated = try await NativeAppleSignInTests.postJSON(harness.browser(),
            NativeAppleSignInTests.fields(other, rawNonce: nonce, app: "conf-app", response: "tokens"))
        #expect(unauthenticated.status == 401 && NativeAppleSignInTests.json(unauthenticated)["error"]?.stringValue == "invalid_client")
        var withSecret = NativeAppleSignInTests.fields(other, rawNonce: nonce, app: "conf-app", response: "tokens")
        withSecret["client_secret"] = secret
        let authenticated = try await NativeAppleSignInTests.postJSON(harness.browser(), withSecret)
        #expect(authenticated.status == 200 && NativeAppleSignInTests.json(authenticated)["access_token"] != nil, "\(authenticated.text)")
    }
}
