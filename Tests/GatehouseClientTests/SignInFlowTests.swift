import Foundation
import GatehouseClient
import Testing

/// `OAuthClient.signIn`: callback → exchange → JWKS → ID-token validation, against stubs.
@Suite struct SignInFlowTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func client(idToken: String?) -> (OAuthClient, StubTransport) {
        let transport = StubTransport { request in
            switch request.url?.path {
            case "/oauth/jwks": return .json(#"{"keys":[{"kty":"RSA","kid":"k1","n":"AQAB","e":"AQAB"}]}"#)
            case "/oauth/token":
                let id = idToken.map { #","id_token":"\#($0)""# } ?? ""
                return .json(#"{"access_token":"at","token_type":"Bearer","expires_in":60\#(id)}"#)
            default: return .json(404, "{}")
            }
        }
        let client = OAuthClient(metadata: Fixtures.metadata, configuration: Fixtures.client, transport: transport, signatureVerifier: FakeSignatureVerifier(), now: { [now] in now })
        return (client, transport)
    }

    private func callback(for request: AuthorizationRequest) -> URL {
        URL(string: "com.example.app:/oauth/callback?code=c&state=\(request.state)")!
    }

    @Test func validatesIDTokenWithFetchedJWKSAndRequestNonce() async throws {
        let (probe, _) = client(idToken: nil)
        let request = probe.authorizationRequest(scopes: ["openid"])
        let token = Fixtures.jwt(claims: Fixtures.claims(now: now, overrides: ["nonce": request.nonce!]), signature: "good")
        let (client, transport) = client(idToken: token)
        let result = try await client.signIn(callbackURL: callback(for: request), request: request)
        #expect(result.idTokenClaims?.subject == "user-1")
        #expect(transport.count(path: "/oauth/jwks") == 1)
    }

    @Test func idTokenFromAnotherRequestRejected() async throws {
        let (probe, _) = client(idToken: nil)
        let request = probe.authorizationRequest(scopes: ["openid"])
        let token = Fixtures.jwt(claims: Fixtures.claims(now: now, overrides: ["nonce": "other-request"]), signature: "good")
        let (client, _) = client(idToken: token)
        await #expect(throws: IDTokenError.nonceMismatch) { try await client.signIn(callbackURL: callback(for: request), request: request) }
    }

    @Test func openIDRequestWithoutIDTokenRejected() async throws {
        let (client, _) = client(idToken: nil)
        let request = client.authorizationRequest(scopes: ["openid"])
        await #expect(throws: IDTokenError.missingClaim("id_token")) { try await client.signIn(callbackURL: callback(for: request), request: request) }
        // Plain OAuth (no openid scope, e.g. GitHub) needs none.
        let oauthOnly = client.authorizationRequest(scopes: ["repo"], includeNonce: false)
        let result = try await client.signIn(callbackURL: callback(for: oauthOnly), request: oauthOnly)
        #expect(result.idTokenClaims == nil)
    }

    @Test func callbackCheckedBeforeAnyNetworkCall() async throws {
        let (client, transport) = client(idToken: nil)
        let request = client.authorizationRequest(scopes: ["openid"])
        await #expect(throws: AuthorizationCallbackError.stateMismatch) {
            try await client.signIn(callbackURL: URL(string: "com.example.app:/oauth/callback?code=c&state=forged")!, request: request)
        }
        #expect(transport.requests.isEmpty)
    }
}
