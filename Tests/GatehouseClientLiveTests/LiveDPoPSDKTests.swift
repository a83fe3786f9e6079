import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import GatehouseClientOpenSSL
import GatehouseCrypto
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// The SDK's DPoP (RFC 9449) against a live Gatehouse on a real socket that requires server nonces: sign-in,
/// userinfo, an API request with `ath`, refresh and revocation all proved with the software key; each
/// `use_dpop_nonce` refusal retried once; the key kept with the tokens; and every proof the SDK sent checked
/// again by an independent verifier (Python's `cryptography`, e2e/dpop_client.py).
@Suite(.serialized) struct LiveDPoPSDKTests {
    /// Passes requests on and keeps every request and its status, so the test sees the retries and the proofs.
    final class RecordingTransport: HTTPTransport {
        let base = URLSessionTransport(timeout: 60)
        let sent = Recorder<(request: URLRequest, status: Int)>()
        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let answer = try await base.send(request)
            sent.append((request, answer.1.statusCode))
            return answer
        }
        func to(_ path: String) -> [(request: URLRequest, status: Int)] { sent.all.filter { $0.request.url?.path == path } }
    }

    static func client(_ live: LiveGatehouseSDKTests.Live, key: any DPoPKey, transport: RecordingTransport) async throws -> GatehouseClient.OAuthClient {
        try await GatehouseClient.OAuthClient.discover(
            issuer: live.issuer, configuration: ClientConfiguration(clientID: "sdk-app", redirectURI: URL(string: "http://127.0.0.1/cb")!),
            transport: transport, signatureVerifier: OpenSSLIDTokenSignatureVerifier(), dpopKey: key)
    }

    /// The independent verifier (`GatehouseTesting`) over `(proof, method, url, access token)`; one result a proof.
    static func verify(_ requests: [[String: String]]) throws -> [[String: Any]] { try IndependentDPoPVerifier.verify(requests) }

    static func cnf(_ accessToken: String) -> String? {
        let parts = accessToken.split(separator: ".")
        guard parts.count == 3, let payload = GatehouseClient.Base64URL.decode(String(parts[1])),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return (claims["cnf"] as? [String: Any])?["jkt"] as? String
    }

    @Test func theSDKBindsItsTokensToItsKeyAndRetriesOnceForTheServersNonce() async throws {
        let live = try await LiveGatehouseSDKTests.start { $0.oauth.dpopNonceRequired = true }
        defer { Task { _ = await live.server.stop() } }
        let key = try SoftwareDPoPKey()
        let transport = RecordingTransport()
        let client = try await Self.client(live, key: key, transport: transport)
        let store = InMemoryTokenStore()
        let state = AuthState(client: client, store: store)

        // Sign-in: the first proof has no nonce, the server answers 400 use_dpop_nonce, the SDK retries once.
        try await state.signIn(username: LiveGatehouseSDKTests.email, password: LiveGatehouseSDKTests.password, scopes: ["openid", "email", "offline_access"])
        #expect(transport.to("/oauth/token").map(\.status) == [400, 200])
        let tokens = try #require(await state.currentTokens)
        #expect(tokens.tokenType == "DPoP" && Self.cnf(tokens.accessToken) == key.thumbprint)
        #expect(tokens.dpopKeyThumbprint == key.thumbprint && tokens.dpopKeyReference == key.keyReference)
        #expect(try SoftwareDPoPKey(privateJWKData: try #require(tokens.dpopKeyReference)).thumbprint == key.thumbprint)

        // userinfo and an API request through AuthorizedHTTPClient: `Authorization: DPoP` and a proof with `ath`.
        let claims = try await client.userInfo(accessToken: tokens.accessToken)
        #expect(claims["email"]?.stringValue == LiveGatehouseSDKTests.email)
        let api = AuthorizedHTTPClient(authState: state, transport: transport)
        let (_, answer) = try await api.send(URLRequest(url: live.issuer.appendingPathComponent("oauth/userinfo")))
        #expect(answer.statusCode == 200)
        let userinfo = transport.to("/oauth/userinfo")
        #expect(userinfo.allSatisfy { $0.request.value(forHTTPHeaderField: "Authorization") == "DPoP " + tokens.accessToken })

        // A resource server's nonce the client has not seen yet: 401 with the DPoP challenge, retried once.
        let freshTransport = RecordingTransport()
        let newcomer = try await Self.client(live, key: key, transport: freshTransport)
        #expect(try await newcomer.userInfo(accessToken: tokens.accessToken)["email"] != nil)
        #expect(freshTransport.to("/oauth/userinfo").map(\.status) == [401, 200])

        // Refresh with the same key: bound again; the family keeps the key.
        let refreshed = try await state.freshAccessToken(rejected: tokens.accessToken)
        #expect(refreshed != tokens.accessToken && Self.cnf(refreshed) == key.thumbprint)

        // Every proof the SDK sent verifies independently, names its request, and carries the token's hash where it had one.
        let proofs = (transport.sent.all + freshTransport.sent.all).compactMap { sent -> [String: String]? in
            guard let proof = sent.request.value(forHTTPHeaderField: "DPoP"), let url = sent.request.url else { return nil }
            var check = ["proof": proof, "method": sent.request.httpMethod ?? "GET",
                         "url": live.issuer.absoluteString + url.path]
            if let authorization = sent.request.value(forHTTPHeaderField: "Authorization"), authorization.hasPrefix("DPoP ") {
                check["access_token"] = String(authorization.dropFirst(5))
            }
            return check
        }
        #expect(proofs.count == transport.sent.count + freshTransport.sent.count - 2, "every request but the two discoveries is proved")
        let results = try Self.verify(proofs)
        #expect(results.count == proofs.count)
        #expect(results.allSatisfy { $0["ok"] as? Bool == true && $0["jkt"] as? String == key.thumbprint }, "\(results)")
        #expect(proofs.contains { $0["access_token"] != nil })

        // Sign-out revokes the bound family with a proof of its key.
        let family = try #require(await state.currentTokens?.refreshToken)
        try await state.signOut()
        let revoked = try await live.app.services.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: family))
        #expect(revoked?.revokedAt != nil)
    }

    @Test func aRefreshWithAnotherKeyFails() async throws {
        let live = try await LiveGatehouseSDKTests.start()
        defer { Task { _ = await live.server.stop() } }
        let key = try SoftwareDPoPKey()
        let store = InMemoryTokenStore()
        let state = AuthState(client: try await Self.client(live, key: key, transport: RecordingTransport()), store: store)
        try await state.signIn(username: LiveGatehouseSDKTests.email, password: LiveGatehouseSDKTests.password, scopes: ["openid", "offline_access"])
        let tokens = try #require(await state.currentTokens)

        // The server refuses the bound refresh token with any other key.
        let otherKey = try SoftwareDPoPKey()
        let other = try await Self.client(live, key: otherKey, transport: RecordingTransport())
        let refreshToken = try #require(tokens.refreshToken)
        await #expect(throws: GatehouseClient.OAuthError.self) { _ = try await other.refresh(refreshToken: refreshToken) }
        // And AuthState refuses before sending it: the stored thumbprint is not the client's key.
        let restored = AuthState(client: other, store: store)
        try await restored.restore()
        await #expect(throws: AuthStateError.dpopKeyChanged) { try await restored.freshAccessToken(rejected: tokens.accessToken) }
        #expect(await restored.status == .signedOut)
        // The key rebuilt from the stored reference still works (what an app does at launch).
        let again = InMemoryTokenStore(tokens)
        let rebuilt = try SoftwareDPoPKey(privateJWKData: try #require(tokens.dpopKeyReference))
        let relaunched = AuthState(client: try await Self.client(live, key: rebuilt, transport: RecordingTransport()), store: again)
        try await relaunched.restore()
        #expect(try await relaunched.freshAccessToken(rejected: tokens.accessToken) != tokens.accessToken)
    }

    /// The SDK README's setup (`DPoPReadmeExample.swift`, shown there byte for byte): sign in, call an API, relaunch.
    @Test func theReadmeSetupSignsInCallsAnAPIAndComesBackAfterARelaunch() async throws {
        let live = try await LiveGatehouseSDKTests.start()
        defer { Task { _ = await live.server.stop() } }
        let store = InMemoryTokenStore()
        let configuration = ClientConfiguration(clientID: "sdk-app", redirectURI: URL(string: "http://127.0.0.1/cb")!)
        let (state, api) = try await startDPoPSession(issuer: live.issuer, configuration: configuration, store: store)
        try await state.signIn(username: LiveGatehouseSDKTests.email, password: LiveGatehouseSDKTests.password,
                               scopes: ["openid", "email", "offline_access"])
        let (body, response) = try await api.send(URLRequest(url: live.issuer.appendingPathComponent("oauth/userinfo")))
        #expect(response.statusCode == 200 && String(decoding: body, as: UTF8.self).contains(LiveGatehouseSDKTests.email))
        let tokens = try #require(await state.currentTokens)
        #expect(tokens.tokenType == "DPoP" && Self.cnf(tokens.accessToken) == tokens.dpopKeyThumbprint)

        // The next launch finds the key beside the tokens, so the bound refresh token still works.
        let (relaunched, _) = try await startDPoPSession(issuer: live.issuer, configuration: configuration, store: store)
        #expect(await relaunched.status == .signedIn)
        let refreshed = try await relaunched.freshAccessToken(rejected: tokens.accessToken)
        #expect(refreshed != tokens.accessToken && Self.cnf(refreshed) == tokens.dpopKeyThumbprint)
    }
}
