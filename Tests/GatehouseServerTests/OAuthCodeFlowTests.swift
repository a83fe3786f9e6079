import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseTesting
import Testing

@Suite struct OAuthCodeFlowTests {
    @Test func codeWithPKCEThenRefreshRevokeAndUserinfo() async throws {
        let oauth = try await OAuthFixture.make()
        let (code, verifier) = try await oauth.publicCode()
        let exchange = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                              ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)])
        #expect(exchange.status == 200)
        #expect(exchange.headers["Cache-Control"] == "no-store")
        let access = try #require(exchange.json["access_token"] as? String)
        let refresh = try #require(exchange.json["refresh_token"] as? String)
        let idToken = try #require(exchange.json["id_token"] as? String)
        #expect(exchange.json["token_type"] as? String == "Bearer")
        let at = OAuthFixture.claims(access)
        #expect(at["client_id"] as? String == "native-app" && at["iss"] as? String == "http://127.0.0.1:8080")
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(access.split(separator: ".")[0]))!)) as? [String: Any]
        #expect(header?["typ"] as? String == "at+jwt" && header?["alg"] as? String == "ES256")
        let id = OAuthFixture.claims(idToken)
        #expect(id["aud"] as? String == "native-app" && id["nonce"] as? String == "n-123")
        #expect(id["email"] as? String == "ada@example.com" && id["at_hash"] as? String == TokenIssuer.atHash(access))
        #expect((id["amr"] as? [String]) == ["pwd"])

        let info = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"])
        #expect(info.status == 200 && info.text.contains("ada@example.com"))

        let refreshed = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "native-app")])
        #expect(refreshed.status == 200)
        let rotated = try #require(refreshed.json["refresh_token"] as? String)
        #expect(rotated != refresh)

        // The rotated-away token is a replay: the whole family dies, including the newest refresh token.
        let replay = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "native-app")])
        #expect(replay.status == 400 && replay.json["error"] as? String == "invalid_grant")
        let afterReplay = try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", rotated), ("client_id", "native-app")])
        #expect(afterReplay.json["error"] as? String == "invalid_grant")
        let newAccess = try #require(refreshed.json["access_token"] as? String)
        #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(newAccess)"]).status == 401,
                "access tokens of a revoked family stop working too")
    }

    @Test func authorizeResponseCarriesIssAndState() async throws {
        let oauth = try await OAuthFixture.make()
        let verifier = PKCE.generateVerifier()
        let result = try await oauth.authorizeAndDecide([("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"),
                                                ("state", "xyz"), ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
                                                ("unknown_param", "ignored")])
        #expect(result.status == 303)
        #expect(result.query["state"] == "xyz" && result.query["iss"] == "http://127.0.0.1:8080" && result.query["code"] != nil)
    }

    @Test func loopbackRedirectMatchesAnyPort() async throws {
        let oauth = try await OAuthFixture.make()
        let verifier = PKCE.generateVerifier()
        let result = try await oauth.authorizeAndDecide([("response_type", "code"), ("client_id", "native-app"),
                                                ("redirect_uri", "http://127.0.0.1:49152/callback"),
                                                ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")])
        #expect(result.location?.hasPrefix("http://127.0.0.1:49152/callback?code=") == true)
    }

    @Test(arguments: [
        ("wrong verifier", "wrong", 400, "invalid_grant"),
        ("missing verifier", nil as String?, 400, "invalid_grant"),
    ])
    func pkceVerifierIsChecked(_ name: String, verifier: String?, status: Int, error: String) async throws {
        let oauth = try await OAuthFixture.make()
        let (code, _) = try await oauth.publicCode()
        var form = [("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback")]
        if let verifier { form.append(("code_verifier", verifier == "wrong" ? PKCE.generateVerifier() : verifier)) }
        let response = try await oauth.token(form)
        #expect(response.status == status && response.json["error"] as? String == error, "\(name)")
    }

    @Test func reusedCodeIsRefusedAndRevokesWhatItIssued() async throws {
        let oauth = try await OAuthFixture.make()
        let (code, verifier) = try await oauth.publicCode()
        let form = [("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                    ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)]
        let first = try await oauth.token(form)
        #expect(first.status == 200)
        let second = try await oauth.token(form)
        #expect(second.status == 400 && second.json["error"] as? String == "invalid_grant")
        let refresh = try #require(first.json["refresh_token"] as? String)
        #expect(try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "native-app")]).status == 400)
        let access = try #require(first.json["access_token"] as? String)
        #expect(try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"]).status == 401)
    }

    @Test func expiredCodeIsRefused() async throws {
        let oauth = try await OAuthFixture.make()
        let (code, verifier) = try await oauth.publicCode()
        oauth.gatehouse.clock.advance(61)
        let response = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("client_id", "native-app"),
                                              ("redirect_uri", "com.example.app:/callback"), ("code_verifier", verifier)])
        #expect(response.json["error"] as? String == "invalid_grant")
    }

    @Test func codeFromAnotherClientAndRedirectMismatchAreRefused() async throws {
        let oauth = try await OAuthFixture.make()
        let (code, verifier) = try await oauth.publicCode()
        let otherClient = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "com.example.app:/callback"),
                                                 ("code_verifier", verifier)], basic: ("web-app", oauth.confidentialSecret))
        #expect(otherClient.json["error"] as? String == "invalid_grant")
        let (code2, verifier2) = try await oauth.publicCode()
        let mismatch = try await oauth.token([("grant_type", "authorization_code"), ("code", code2), ("client_id", "native-app"),
                                              ("redirect_uri", "com.example.app:/callbacK"), ("code_verifier", verifier2)])
        #expect(mismatch.json["error"] as? String == "invalid_grant")
    }

    @Test func authorizeErrorsNeverRedirectForUntrustedClientsOrURIs() async throws {
        let oauth = try await OAuthFixture.make()
        let unknown = try await oauth.authorize([("response_type", "code"), ("client_id", "nope"), ("redirect_uri", "https://evil.example/")])
        #expect(unknown.status == 400 && unknown.location == nil)
        let oneCharOff = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"),
                                                    ("redirect_uri", OAuthFixture.redirect + "x")])
        #expect(oneCharOff.status == 400 && oneCharOff.location == nil)
        let duplicated = try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"), ("client_id", "web-app")])
        #expect(duplicated.status == 400 && duplicated.location == nil)
    }

    @Test(arguments: [
        ([("code_challenge", "abc"), ("code_challenge_method", "plain")], "invalid_request"),
        ([("code_challenge_method", "S256")], "invalid_request"),
        ([("response_type", "token")], "unsupported_response_type"),
        ([("scope", "openid admin")], "invalid_scope"),
        ([("prompt", "none login")], "invalid_request"),
    ])
    func badRequestsRedirectWithAnError(_ extra: [(String, String)], error: String) async throws {
        let oauth = try await OAuthFixture.make()
        var parameters = [("client_id", "web-app"), ("redirect_uri", OAuthFixture.redirect), ("state", "st")]
        if !extra.contains(where: { $0.0 == "response_type" }) { parameters.append(("response_type", "code")) }
        parameters += extra
        let result = try await oauth.authorize(parameters)
        #expect(result.status == 303)
        #expect(result.query["error"] == error && result.query["state"] == "st" && result.query["iss"] != nil)
    }

    @Test func publicClientsMustUsePKCE() async throws {
        let oauth = try await OAuthFixture.make()
        let result = try await oauth.authorize([("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback")])
        #expect(result.query["error"] == "invalid_request")
    }

    @Test func unauthenticatedUsersGoThroughSignInAndComeBack() async throws {
        let oauth = try await OAuthFixture.make()
        let stranger = oauth.gatehouse.browser(ip: "10.9.9.9")
        let verifier = PKCE.generateVerifier()
        let parameters = [("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"),
                          ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"), ("login_hint", "ada@example.com")]
        let first = try await oauth.authorize(parameters, browser: stranger)
        let signIn = try #require(first.location)
        #expect(signIn.hasPrefix("/sign-in?return_to=%2Foauth%2Fauthorize"))
        #expect(try await stranger.get(signIn).text.contains(#"value="ada@example.com""#), "login_hint fills the form")
        let returnTo = try #require(URLComponents(string: signIn)?.queryItems?.first { $0.name == "return_to" }?.value)
        let signedIn = try await stranger.submit(signIn, to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery"),
                                                                          ("return_to", returnTo)])
        #expect(signedIn.headers["Location"] == returnTo)
        let back = try await oauth.decide(try await stranger.get(returnTo), "allow", browser: stranger)
        #expect(back.headers["Location"]?.hasPrefix("com.example.app:/callback?code=") == true)
    }

    @Test func promptNoneWithoutSessionAndPromptLogin() async throws {
        let oauth = try await OAuthFixture.make()
        let verifier = PKCE.generateVerifier()
        let base = [("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"),
                    ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]
        let none = try await oauth.authorize(base + [("prompt", "none")], browser: oauth.gatehouse.browser())
        #expect(none.query["error"] == "login_required")
        let login = try await oauth.authorize(base + [("prompt", "login")])
        #expect(login.location?.hasPrefix("/sign-in?") == true && login.location?.contains("reauth=1") == true,
                "prompt=login asks a signed-in user to sign in again")
        oauth.gatehouse.clock.advance(120)
        let stale = try await oauth.authorize(base + [("max_age", "60")])
        #expect(stale.location?.hasPrefix("/sign-in?") == true)
        let fresh = try await oauth.authorizeAndDecide(base + [("max_age", "3600")])
        #expect(fresh.query["code"] != nil)
    }
}
