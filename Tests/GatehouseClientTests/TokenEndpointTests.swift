import Foundation
import GatehouseClient
import Testing

@Suite struct TokenEndpointTests {
    private static let tokenBody = #"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1","scope":"openid"}"#

    private func request() -> AuthorizationRequest {
        AuthorizationRequest.make(metadata: Fixtures.metadata, client: Fixtures.client, scopes: ["openid"])
    }

    @Test func codeExchangeSendsVerifierAndRedirectAsPublicClient() async throws {
        let transport = StubTransport { _ in .json(Self.tokenBody) }
        let client = Fixtures.oauthClient(transport)
        let authorization = request()
        let callback = try authorization.parseCallback(URL(string: "com.example.app:/oauth/callback?code=c-1&state=\(authorization.state)")!)
        let tokens = try await client.exchangeCode(callback, for: authorization)
        #expect(tokens == TokenResponse(accessToken: "at-1", expiresIn: 3600, refreshToken: "rt-1", scope: "openid"))

        let sent = try #require(transport.requests.first)
        #expect(sent.httpMethod == "POST")
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(sent.formFields == [
            "grant_type": "authorization_code", "code": "c-1", "client_id": "app-1",
            "redirect_uri": "com.example.app:/oauth/callback", "code_verifier": authorization.codeVerifier,
        ])
    }

    @Test func clientSecretBasicFormEncodesBeforeBase64() async throws {
        let transport = StubTransport { _ in .json(Self.tokenBody) }
        _ = try await Fixtures.oauthClient(transport, authentication: .clientSecretBasic("s3cr:t %")).refresh(refreshToken: "rt")
        let sent = try #require(transport.requests.first)
        let expected = "Basic " + Data("app-1:s3cr%3At%20%25".utf8).base64EncodedString()
        #expect(sent.value(forHTTPHeaderField: "Authorization") == expected)
        #expect(sent.formFields["client_secret"] == nil)
        #expect(sent.formFields["client_id"] == nil)
    }

    @Test func clientSecretPostPutsCredentialsInBody() async throws {
        let transport = StubTransport { _ in .json(Self.tokenBody) }
        _ = try await Fixtures.oauthClient(transport, authentication: .clientSecretPost("shh")).passwordGrant(username: "ann", password: "pw", scopes: ["api"])
        let sent = try #require(transport.requests.first)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(sent.formFields == [
            "grant_type": "password", "username": "ann", "password": "pw", "scope": "api",
            "client_id": "app-1", "client_secret": "shh",
        ])
    }

    @Test func rfc6749ErrorBodyBecomesTypedError() async {
        let transport = StubTransport { _ in .json(400, #"{"error":"invalid_grant","error_description":"code reused"}"#) }
        await #expect(throws: OAuthError(code: .invalidGrant, description: "code reused", httpStatus: 400)) {
            try await Fixtures.oauthClient(transport).refresh(refreshToken: "rt")
        }
    }

    @Test func githubStyleErrorWith200IsAnError() async {
        let transport = StubTransport { _ in .json(200, #"{"error":"bad_verification_code","error_description":"The code passed is incorrect or expired."}"#) }
        await #expect(throws: OAuthError.self) {
            try await Fixtures.oauthClient(transport).refresh(refreshToken: "rt")
        }
    }

    @Test func non2xxWithoutErrorBodyIsUnexpectedStatus() async {
        let transport = StubTransport { _ in StubTransport.Reply(status: 502, body: Data("bad gateway".utf8), headers: [:]) }
        await #expect(throws: HTTPTransportError.unexpectedStatus(502, body: "bad gateway")) {
            try await Fixtures.oauthClient(transport).refresh(refreshToken: "rt")
        }
    }

    @Test func revokeSendsTokenAndHint() async throws {
        let transport = StubTransport { _ in .json("") }
        try await Fixtures.oauthClient(transport).revoke(token: "rt-9", hint: .refreshToken)
        let sent = try #require(transport.requests.first)
        #expect(sent.url?.path == "/oauth/revoke")
        #expect(sent.formFields == ["token": "rt-9", "token_type_hint": "refresh_token", "client_id": "app-1"])
    }

    @Test func revokeErrorSurfaces() async {
        let transport = StubTransport { _ in .json(400, #"{"error":"unsupported_token_type"}"#) }
        await #expect(throws: OAuthError(code: .unsupportedTokenType, httpStatus: 400)) {
            try await Fixtures.oauthClient(transport).revoke(token: "x")
        }
    }

    @Test func userInfoUsesBearer() async throws {
        let transport = StubTransport { request in
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer at-7")
            return .json(#"{"sub":"u1","email":"a@example.com","email_verified":"true"}"#)
        }
        let info = try await Fixtures.oauthClient(transport).userInfo(accessToken: "at-7")
        #expect(info["sub"] == .string("u1"))
        #expect(info["email_verified"]?.boolValue == true)
    }

    @Test func userInfo401IsInvalidToken() async {
        let transport = StubTransport { _ in StubTransport.Reply(status: 401, body: Data(), headers: [:]) }
        await #expect(throws: OAuthError(code: .invalidToken, httpStatus: 401)) {
            try await Fixtures.oauthClient(transport).userInfo(accessToken: "dead")
        }
    }
}
