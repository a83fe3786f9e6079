import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import Testing

/// The SDK against a real, independent OpenID provider (`oidc-provider-mock` from PyPI):
/// proves it speaks standard OIDC, not just Gatehouse. The provider does not check PKCE, so
/// this test proves interoperability, not the server side of PKCE.
@Suite(.serialized) struct ThirdPartyProviderTests {
    private let redirect = URL(string: "http://127.0.0.1:1/oauth/callback")!

    /// Completes the provider's "pick a user" form without a browser and returns the redirect.
    private func authorize(_ url: URL, subject: String) async throws -> URL {
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data("sub=\(subject)".utf8)
        let (_, response) = try await URLSessionTransport(timeout: 10, followsRedirects: false).send(post)
        #expect((300..<400).contains(response.statusCode))
        let location = response.allHeaderFields.first { ($0.key as? String)?.lowercased() == "location" }?.value as? String
        return try #require(location.flatMap(URL.init(string:)))
    }

    @Test func codeFlowWithDiscoveryIDTokenAndUserinfo() async throws {
        try await MockOIDCProvider.run { base in
            let configuration = ClientConfiguration(clientID: "gatehouse-sdk-test", redirectURI: redirect, authentication: .clientSecretBasic("any-secret"))
            let client = try await OAuthClient.discover(
                issuer: base, configuration: configuration, transport: URLSessionTransport(timeout: 10),
                signatureVerifier: PythonSignatureVerifier()
            )
            #expect(client.metadata.issuer == base.absoluteString)

            let request = client.authorizationRequest(scopes: ["openid", "email"])
            let callbackURL = try await authorize(request.url, subject: "alice@example.com")
            #expect(callbackURL.absoluteString.hasPrefix(redirect.absoluteString))

            // Parse, exchange, then verify the ID token's RS256 signature against the JWKS and its claims.
            let store = InMemoryTokenStore()
            let auth = AuthState(client: client, store: store)
            let result = try await auth.signIn(callbackURL: callbackURL, request: request)
            let claims = try #require(result.idTokenClaims)
            #expect(claims.subject == "alice@example.com")
            #expect(claims.issuer == base.absoluteString)
            #expect(claims.audience.contains("gatehouse-sdk-test"))
            #expect(claims.nonce == request.nonce)

            let info = try await client.userInfo(accessToken: result.tokens.accessToken)
            #expect(info["sub"] == .string("alice@example.com"))

            // A real refresh through AuthState (the provider does not rotate; the old refresh token is kept).
            let before = try #require(await store.load())
            let refreshed = try await auth.freshAccessToken(rejected: before.accessToken)
            #expect(refreshed != before.accessToken)
            #expect(await store.load()?.refreshToken == before.refreshToken)
            let infoAfter = try await client.userInfo(accessToken: refreshed)
            #expect(infoAfter["sub"] == .string("alice@example.com"))

            // The verifier is real: a token whose signature was tampered with is refused.
            let idToken = try #require(result.tokens.idToken)
            let tampered = String(idToken.dropLast(4)) + (idToken.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            await #expect(throws: IDTokenError.signatureInvalid) {
                try await client.validateIDToken(tampered, nonce: request.nonce)
            }
            // And a nonce from another request is refused.
            await #expect(throws: IDTokenError.nonceMismatch) {
                try await client.validateIDToken(idToken, nonce: "someone-elses-nonce")
            }
        }
    }

    @Test func stolenCodeWithForgedStateRejectedBeforeExchange() async throws {
        try await MockOIDCProvider.run { base in
            let configuration = ClientConfiguration(clientID: "gatehouse-sdk-test", redirectURI: redirect, authentication: .clientSecretPost("x"))
            let client = try await OAuthClient.discover(issuer: base, configuration: configuration, transport: URLSessionTransport(timeout: 10), signatureVerifier: PythonSignatureVerifier())
            let victim = client.authorizationRequest(scopes: ["openid"])
            let attacker = client.authorizationRequest(scopes: ["openid"])
            let attackerCallback = try await authorize(attacker.url, subject: "mallory")
            #expect(throws: AuthorizationCallbackError.stateMismatch) { try victim.parseCallback(attackerCallback) }

            // client_secret_post works against this provider too.
            let callback = try await authorize(victim.url, subject: "bob")
            let result = try await client.signIn(callbackURL: callback, request: victim)
            #expect(result.idTokenClaims?.subject == "bob")
        }
    }

    @Test func discoveryWithWrongIssuerRejectedByRealProvider() async throws {
        try await MockOIDCProvider.run { base in
            // "localhost" reaches the same server, which then names itself http://localhost:PORT.
            let port = base.port!
            let transport = URLSessionTransport(timeout: 10)
            let viaLocalhost = try await ProviderDiscovery.discover(issuer: URL(string: "http://localhost:\(port)")!, transport: transport)
            #expect(viaLocalhost.issuer == "http://localhost:\(port)")
            // A well-known document served for one issuer must not be accepted for another.
            struct Rewriting: HTTPTransport {
                let inner: URLSessionTransport
                func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
                    var rewritten = request
                    rewritten.url = URL(string: request.url!.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
                    return try await inner.send(rewritten)
                }
            }
            await #expect(throws: DiscoveryError.issuerMismatch(expected: base.absoluteString, actual: "http://localhost:\(port)")) {
                try await ProviderDiscovery.discover(issuer: base, transport: Rewriting(inner: transport))
            }
        }
    }
}
