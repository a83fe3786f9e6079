import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// The OpenID Connect / RFC 6749 points a black-box OP probe checks, plus the
/// per-client ID-token signing algorithm (item 1).
@Suite struct OIDCConformanceTests {
    static func discovery(_ gatehouse: TestGatehouse) async throws -> [String: Any] {
        let response = try await InProcessClient(gatehouse.app.pipeline).get("/.well-known/openid-configuration")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func discoveryListsOnlyGrantsSomeRegisteredClientMayUse() async throws {
        let gatehouse = try await TestGatehouse.make()
        let registry = gatehouse.app.services.tokens.registry
        _ = try await registry.register(ClientRegistration(id: "spa", name: "SPA", kind: .public, redirectURIs: ["https://spa.example/cb"],
                                                           grantTypes: ["authorization_code", "refresh_token"]))
        let grants = try #require(try await Self.discovery(gatehouse)["grant_types_supported"] as? [String])
        #expect(grants == ["authorization_code", "refresh_token"], "no client may use password or client_credentials")
        #expect(try await Self.discovery(gatehouse)["id_token_signing_alg_values_supported"] as? [String] == ["RS256", "ES256"])

        // A client registered later shows up (after the 30-second cache) without a restart.
        let later = try await TestGatehouse.make()
        _ = try await later.app.services.tokens.registry.register(ClientRegistration(
            id: "api", name: "API", kind: .confidential, grantTypes: ["client_credentials"]))
        _ = try await later.app.services.tokens.registry.register(ClientRegistration(
            id: "legacy", name: "Legacy", kind: .public, redirectURIs: ["https://legacy.example/cb"],
            grantTypes: ["authorization_code", "password"], firstParty: true))
        #expect(try await Self.discovery(later)["grant_types_supported"] as? [String] == ["authorization_code", "password", "client_credentials"])
    }

    @Test func unsupportedStandardScopesAreIgnoredButUnknownOnesStayInvalid() async throws {
        let oauth = try await OAuthFixture.make()
        // web-app is confidential, so a signed-in user gets a code without a confirmation page.
        func authorize(_ scope: String) async throws -> [String: String] {
            try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect),
                                       ("scope", scope), ("state", "s")]).query
        }
        let granted = try await authorize("openid address phone email")
        let code = try #require(granted["code"], "address and phone are ignored (OIDC Core §5.4), not invalid_scope: \(granted)")
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)],
                                           basic: ("web-app", oauth.confidentialSecret))
        #expect(tokens.status == 200)
        #expect(tokens.json["scope"] as? String == "openid email", "the ignored scopes are not granted")
        #expect(try await authorize("openid admin")["error"] == "invalid_scope", "a scope nobody registered still fails")
    }

    @Test func redirectURIIsNeededAtTheTokenEndpointOnlyIfTheAuthorizationRequestCarriedIt() async throws {
        let oauth = try await OAuthFixture.make()
        // web-app has one registered redirect URI, so the authorization request may leave it out.
        let without = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("scope", "openid"), ("state", "s")])
        let code = try #require(without.query["code"])
        #expect(without.location?.hasPrefix(OAuthFixture.redirect + "?") == true)
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code)], basic: ("web-app", oauth.confidentialSecret))
        #expect(tokens.status == 200, "RFC 6749 §4.1.3: redirect_uri was not in the authorization request")

        // A redirect_uri sent anyway must still be one registered for the client.
        let other = try #require(try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("scope", "openid")]).query["code"])
        let wrong = try await oauth.token([("grant_type", "authorization_code"), ("code", other), ("redirect_uri", "https://evil.example/cb")],
                                          basic: ("web-app", oauth.confidentialSecret))
        #expect(wrong.status == 400 && wrong.json["error"] as? String == "invalid_grant")

        // When the request carried it, the token request must repeat it exactly.
        let with = try #require(try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"),
                                                           ("redirect_uri", OAuthFixture.redirect), ("scope", "openid")]).query["code"])
        let missing = try await oauth.token([("grant_type", "authorization_code"), ("code", with)], basic: ("web-app", oauth.confidentialSecret))
        #expect(missing.status == 400 && missing.json["error"] as? String == "invalid_request")
    }

    @Test func userinfoAnswersInsufficientScopeForATokenWithoutOpenID() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "profile api.read")], basic: ("web-app", oauth.confidentialSecret))
        let access = try #require(tokens.json["access_token"] as? String)
        let response = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"])
        #expect(response.status == 403)
        let challenge = try #require(response.headers["WWW-Authenticate"])
        #expect(challenge.hasPrefix("Bearer ") && challenge.contains(#"error="insufficient_scope""#) && challenge.contains(#"scope="openid""#))
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(body?["error"] as? String == "insufficient_scope")
        let garbage = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer not-a-token"])
        #expect(garbage.status == 401 && garbage.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
    }

    @Test func logoutRedirectWithoutStateHasNoTrailingQuestionMark() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid")], basic: ("web-app", oauth.confidentialSecret))
        let idToken = try #require(tokens.json["id_token"] as? String)
        let query = URLEncodedForm(pairs: [("id_token_hint", idToken), ("post_logout_redirect_uri", "https://app.example.test/bye")]).encoded
        let response = try await oauth.browser.get("/oauth/logout?" + query)
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "https://app.example.test/bye", "an RS256 id_token_hint is accepted and no bare ? is added")
        let withState = try await oauth.browser.get("/oauth/logout?" + query + "&state=xyz")
        #expect(withState.headers["Location"] == "https://app.example.test/bye?state=xyz")
    }

    @Test func idTokensAreRS256UnlessTheClientAsksForES256() async throws {
        let oauth = try await OAuthFixture.make()
        let registry = oauth.gatehouse.app.services.tokens.registry
        let (ecClient, ecSecret) = try await registry.register(ClientRegistration(
            id: "ec-rp", name: "EC RP", kind: .confidential, redirectURIs: ["https://ec.example/cb"],
            grantTypes: ["authorization_code", "password"], firstParty: true,
            metadata: ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey, to: "ES256", in: "{}")))
        #expect(ecClient.idTokenSigningAlgorithm == .es256)
        let jwks = try JWKSet(json: try await oauth.client.get("/oauth/jwks").body)
        func header(_ jwt: String) throws -> JWSHeader { try CompactJWS(jwt).header }
        let password = [("grant_type", "password"), ("username", "ada@example.com"), ("password", "correct horse battery"), ("scope", "openid")]
        let rs = try await oauth.token(password, basic: ("web-app", oauth.confidentialSecret))
        let es = try await oauth.token(password, basic: ("ec-rp", ecSecret!))
        let rsID = try #require(rs.json["id_token"] as? String), esID = try #require(es.json["id_token"] as? String)
        #expect(try header(rsID).algorithm == "RS256" && jwks[keyID: try header(rsID).keyID ?? ""]?.keyType == "RSA")
        #expect(try header(esID).algorithm == "ES256" && jwks[keyID: try header(esID).keyID ?? ""]?.keyType == "EC")
        // Access tokens stay ES256 whatever the ID-token preference.
        #expect(try header(rs.json["access_token"] as! String).algorithm == "ES256")
        #expect(try header(es.json["access_token"] as! String).algorithm == "ES256")

        await #expect(throws: ClientRegistry.RegistrationError.self, "only RS256 and ES256 are offered") {
            _ = try await registry.register(ClientRegistration(
                name: "Bad", kind: .public, redirectURIs: ["https://bad.example/cb"],
                metadata: ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey, to: "HS256", in: "{}")))
        }
    }
}

/// `id_token_signed_response_alg` in the config file and on the CLI; `keys rotate|list` with two algorithms.
@Suite struct IDTokenAlgorithmRegistrationTests {
    static func configFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gh-alg-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theConfigFileSetsTheAlgorithmBesideTheNativeSettings() async throws {
        let path = try Self.configFile(#"""
            {"clients": [{"id": "rp", "type": "public", "redirect_uris": ["com.example.rp:/cb"], "id_token_signed_response_alg": "ES256",
                          "native": {"callback_schemes": ["rp"], "bundle_ids": ["com.example.rp"]}}]}
            """#)
        let configuration = try GatehouseConfiguration.load(environment: [:], configPath: path)
        let registration = try #require(configuration.clients.first).registration
        let gatehouse = try await TestGatehouse.make()
        try await gatehouse.app.services.tokens.registry.apply(registration, secret: nil)
        let client = try #require(try await gatehouse.app.services.tokens.registry.find(id: "rp"))
        #expect(client.idTokenSigningAlgorithm == .es256)
        #expect(NativeApp(client: client)?.bundleIDs == ["com.example.rp"], "the native registration still reads")

        let bad = try Self.configFile(#"{"clients": [{"id": "rp", "redirect_uris": ["https://rp.example/cb"], "id_token_signed_response_alg": "HS256"}]}"#)
        #expect {
            try GatehouseConfiguration.load(environment: [:], configPath: bad)
        } throws: { error in
            (error as? ConfigurationError)?.key == "clients[0].id_token_signed_response_alg"
        }
    }

    @Test func theCLIRegistersTheAlgorithmAndRotatesBothKeys() async throws {
        let env = ["GATEHOUSE_DATABASE_URL": CommandLineTests.temporaryDatabaseURL()]
        let created = try await CommandLineTests.run(["client", "create", "--id", "ec-rp", "--name", "EC RP", "--type", "public",
                                                      "--redirect-uri", "https://rp.example/cb", "--id-token-signed-response-alg", "ES256"],
                                                     environment: env)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try await CommandLineTests.run(["client", "show", "--id", "ec-rp"], environment: env).stdout
            .contains("id_token_signed_response_alg: ES256"))
        let refused = try await CommandLineTests.run(["client", "create", "--name", "Bad", "--type", "public", "--redirect-uri",
                                                      "https://rp.example/cb", "--id-token-signed-response-alg", "none"], environment: env)
        #expect(refused.status == 2 && refused.stderr.contains("RS256 or ES256"))

        let rotated = try await CommandLineTests.run(["keys", "rotate"], environment: env)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let list = try await CommandLineTests.run(["keys", "list"], environment: env).stdout
        let rows = list.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.count == 4, "an EC and an RSA key, each with its successor:\n\(list)")
        #expect(rows.filter { $0[1] == "RS256" }.map { $0[2] }.sorted() == ["signing", "upcoming"])
        #expect(rows.filter { $0[1] == "ES256" }.map { $0[2] }.sorted() == ["signing", "upcoming"])
    }
}
