import Foundation
import GatehouseClient
import Testing

@Suite struct EndSessionAndExchangeTests {
    static func metadata(endSession: String?) -> ProviderMetadata {
        var metadata = Fixtures.metadata
        metadata.endSessionEndpoint = endSession.flatMap(URL.init(string:))
        return metadata
    }

    @Test func endSessionRequestCarriesHintRedirectClientAndState() throws {
        let request = try EndSessionRequest.make(metadata: Self.metadata(endSession: "https://id.example/oauth/logout"), clientID: "app-1",
                                                 idTokenHint: "a.b+c", postLogoutRedirectURI: URL(string: "com.example.app:/bye")!)
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let query = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
        #expect(query == ["id_token_hint": "a.b+c", "post_logout_redirect_uri": "com.example.app:/bye", "client_id": "app-1",
                          "state": request.state ?? "-"])
        #expect(request.url.absoluteString.contains("a.b%2Bc"), "a '+' is escaped, not read as a space")
        #expect((request.state?.count ?? 0) >= 20, "a random state when none is given")
        try request.validateCallback(URL(string: "com.example.app:/bye?state=\(request.state!)")!)
        #expect(throws: AuthorizationCallbackError.stateMismatch) { try request.validateCallback(URL(string: "com.example.app:/bye?state=x")!) }
        #expect(throws: AuthorizationCallbackError.stateMissing) { try request.validateCallback(URL(string: "com.example.app:/bye")!) }
        #expect(throws: AuthorizationCallbackError.redirectURIMismatch) {
            try request.validateCallback(URL(string: "com.evil.app:/bye?state=\(request.state!)")!)
        }
    }

    @Test func withoutARedirectOnlyTheHintIsSentAndNoEndpointIsAnError() throws {
        let bare = try EndSessionRequest.make(metadata: Self.metadata(endSession: "https://id.example/logout"), clientID: "app-1",
                                              idTokenHint: nil, postLogoutRedirectURI: nil)
        #expect(bare.url.absoluteString == "https://id.example/logout" && bare.state == nil)
        #expect(throws: ClientSetupError.endpointMissing("end_session_endpoint")) {
            try EndSessionRequest.make(metadata: Self.metadata(endSession: nil), clientID: "app-1", idTokenHint: "t", postLogoutRedirectURI: nil)
        }
    }

    @Test func appleTokenExchangeSendsTheFirstSignInName() async throws {
        let transport = StubTransport { _ in .json(#"{"access_token":"at","token_type":"Bearer","expires_in":600}"#) }
        let nonce = AppleNonce(raw: "raw-123")
        _ = try await Fixtures.oauthClient(transport).exchangeAppleIdentityToken("apple.jwt", nonce: nonce, givenName: "Ada",
                                                                               familyName: "Lovelace", scopes: ["openid", "profile"])
        let fields = try #require(transport.requests.first).formFields
        #expect(fields == ["grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                           "subject_token_type": "urn:ietf:params:oauth:token-type:id_token", "subject_token": "apple.jwt",
                           "raw_nonce": "raw-123", "given_name": "Ada", "family_name": "Lovelace", "scope": "openid profile",
                           "client_id": "app-1"])
    }

    @Test func signOutAndEndSessionAreAnnouncedOnTheStream() async throws {
        let transport = StubTransport { _ in .json(200, "") }
        let client = OAuthClient(metadata: Self.metadata(endSession: "https://id.example/logout"), configuration: Fixtures.client,
                                 transport: transport, signatureVerifier: nil)
        let state = AuthState(client: client, store: InMemoryTokenStore(TokenSet(accessToken: "at", idToken: "id.tok.en")))
        try await state.restore()
        var iterator = await state.events().makeAsyncIterator()
        #expect(await iterator.next() == .initial(TokenSet(accessToken: "at", idToken: "id.tok.en")))
        let end = try await state.endSession(postLogoutRedirectURI: nil)
        #expect(end?.url.absoluteString == "https://id.example/logout?id_token_hint=id.tok.en")
        #expect(await iterator.next() == .signedOut)
        try await state.signIn(with: TokenResponse(accessToken: "at-2"))
        #expect(await iterator.next() == .signedIn(TokenSet(accessToken: "at-2")))
    }
}
