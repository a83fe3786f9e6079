import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import GatehouseCrypto
import GatehouseIdentity
import GatehouseTesting
import GatehouseWebAuthnTesting
import Synchronization
import Testing

/// The SDK's passkey sign-in (`NativePasskeySignInClient`) against a live Gatehouse on a real socket, with the
/// platform call played by the software authenticator: options, the assertion, tokens.
@Suite(.serialized) struct LivePasskeySDKTests {
    /// The platform's sheet in a test: the software authenticator answers, writing `origin` as iOS or Android would.
    final class SoftwarePasskeyProvider: PasskeyAssertionProvider {
        let authenticator: Mutex<SoftwareAuthenticator>
        let origin: String
        let asked = Recorder<PasskeyAssertionRequest>()

        init(_ authenticator: sending SoftwareAuthenticator, origin: String) {
            self.authenticator = Mutex(authenticator)
            self.origin = origin
        }

        func assertion(for request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
            asked.append(request)
            let origin = origin
            let made = try authenticator.withLock { try $0.assert(challenge: Array(request.challenge), origin: origin) }
            return PasskeyAssertion(credentialID: Data(made.credentialID), clientDataJSON: Data(made.clientDataJSON),
                                    authenticatorData: Data(made.authenticatorData), signature: Data(made.signature),
                                    userHandle: made.userHandle.map { Data($0) })
        }
    }

    /// A live Gatehouse with a registered iOS app and a passkey on the signed-up user (added from /account).
    static func liveWithPasskey() async throws -> (LiveGatehouseSDKTests.Live, SoftwareAuthenticator) {
        let live = try await LiveGatehouseSDKTests.start()
        _ = try await live.app.services.tokens.registry.register(ClientRegistration(
            id: "passkey-app", name: "Passkey App", kind: .public, redirectURIs: ["com.example.app:/oauth"], firstParty: true,
            metadata: #"{"callback_schemes": ["exampleapp"], "apple_app_ids": ["ABCDE12345.com.example.app"]}"#))
        let authenticator = SoftwareAuthenticator(rpID: "127.0.0.1", origin: live.issuer.absoluteString)
        let account = try await live.browser.get("/account")
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: account.text))
        let answer = try await live.browser.post("/account/passkeys/options", [("csrf_token", csrf)])
        guard case .object(let body)? = GatehouseCrypto.JSONValue(parsing: answer.body), case .object(let options)? = body["publicKey"],
              case .string(let challenge)? = options["challenge"], case .object(let user)? = options["user"],
              case .string(let handle)? = user["id"] else { throw LiveFailure.options(answer.text) }
        let made = try authenticator.register(challenge: try #require(GatehouseCrypto.Base64URL.decode(challenge)),
                                              userHandle: try #require(GatehouseCrypto.Base64URL.decode(handle)))
        let stored = try await live.browser.post("/account/passkeys", [
            ("csrf_token", csrf), ("name", "Phone"), ("credential_id", GatehouseCrypto.Base64URL.encode(made.credentialID)),
            ("client_data_json", GatehouseCrypto.Base64URL.encode(made.clientDataJSON)),
            ("attestation_object", GatehouseCrypto.Base64URL.encode(made.attestationObject)), ("transports", "internal")])
        #expect(stored.status == 200, "\(stored.text)")
        return (live, authenticator)
    }

    enum LiveFailure: Error { case options(String) }

    @Test func passkeySignInEndsInTokens() async throws {
        let (live, authenticator) = try await Self.liveWithPasskey()
        defer { Task { _ = await live.server.stop() } }
        let provider = SoftwarePasskeyProvider(authenticator, origin: "https://127.0.0.1")
        let client = NativePasskeySignInClient(base: live.issuer, app: "passkey-app", transport: URLSessionTransport(timeout: 60))
        let (tokens, http) = try await client.signIn(with: provider, response: .tokens)
        #expect(http.statusCode == 200)
        let response = try #require(tokens)
        #expect(!response.accessToken.isEmpty && response.idToken != nil)
        let asked = try #require(provider.asked.all.first)
        #expect(asked.relyingPartyID == "127.0.0.1" && asked.userVerification == "required" && asked.challenge.count == 32)
        // The access token works at Gatehouse's userinfo endpoint.
        var userinfo = URLRequest(url: live.issuer.appendingPathComponent("oauth/userinfo"))
        userinfo.setValue("Bearer \(response.accessToken)", forHTTPHeaderField: "Authorization")
        let (data, answer) = try await URLSessionTransport(timeout: 60).send(userinfo)
        #expect(answer.statusCode == 200 && String(decoding: data, as: UTF8.self).contains(LiveGatehouseSDKTests.email))
    }

    @Test func anAssertionWithTheWrongOriginIsRefusedAsInvalidGrant() async throws {
        let (live, authenticator) = try await Self.liveWithPasskey()
        defer { Task { _ = await live.server.stop() } }
        // The page's web origin: an app may not pass off a web ceremony as its own.
        let provider = SoftwarePasskeyProvider(authenticator, origin: live.issuer.absoluteString)
        let client = NativePasskeySignInClient(base: live.issuer, app: "passkey-app", transport: URLSessionTransport(timeout: 60))
        do {
            _ = try await client.signIn(with: provider, response: .tokens)
            Issue.record("an assertion with the web origin was accepted from the app")
        } catch let error as GatehouseSignInError {
            guard case .refused(let code, _) = error else { Issue.record("\(error)"); return }
            #expect(code == "invalid_grant")
        }
    }
}
