import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore
import GatehouseTesting
import Testing

/// Attacks on the token endpoint: hints, introspection, claims, client authentication, code and
/// refresh races (real concurrent requests), and grants ending with credential resets.
@Suite struct TokenEndpointAttackTests {
    /// A code + tokens for the confidential first-party client (`web-app`).
    static func webTokens(_ oauth: OAuthFixture, scope: String = "openid profile email offline_access") async throws -> [String: Any] {
        let code = try #require(try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"),
                                                          ("redirect_uri", OAuthFixture.redirect), ("scope", scope)]).query["code"])
        let tokens = try await oauth.token([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)],
                                           basic: ("web-app", oauth.confidentialSecret))
        #expect(tokens.status == 200)
        return tokens.json
    }

    static func refresh(_ oauth: OAuthFixture, _ token: String) async throws -> (status: Int, json: [String: Any], headers: HTTPHeaders) {
        try await oauth.token([("grant_type", "refresh_token"), ("refresh_token", token)], basic: ("web-app", oauth.confidentialSecret))
    }

    static func userinfoStatus(_ oauth: OAuthFixture, _ access: String) async throws -> Int {
        try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(access)"]).status
    }

    // Item 10: the hint is a hint; on a miss the other type is tried.
    @Test func wrongTokenTypeHintStillFindsTheToken() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await Self.webTokens(oauth)
        let access = try #require(tokens["access_token"] as? String), refresh = try #require(tokens["refresh_token"] as? String)
        let introspected = try await oauth.post("/oauth/introspect", [("token", access), ("token_type_hint", "refresh_token"),
            ("client_id", "web-app"), ("client_secret", oauth.confidentialSecret)])
        #expect(introspected.json["active"] as? Bool == true)
        let revoked = try await oauth.post("/oauth/revoke", [("token", refresh), ("token_type_hint", "access_token"),
            ("client_id", "web-app"), ("client_secret", oauth.confidentialSecret)])
        #expect(revoked.status == 200)
        #expect(try await Self.refresh(oauth, refresh).json["error"] as? String == "invalid_grant")
        #expect(try await Self.userinfoStatus(oauth, access) == 401, "the family's access token ends with it")
    }

    // Item 11: a confidential client introspects only its own tokens, unless registered to introspect any.
    @Test func introspectionIsLimitedToTheCallersTokens() async throws {
        let oauth = try await OAuthFixture.make()
        let tokens = try await Self.webTokens(oauth)
        let access = try #require(tokens["access_token"] as? String), refresh = try #require(tokens["refresh_token"] as? String)
        for token in [access, refresh] {
            let other = try await oauth.post("/oauth/introspect", [("token", token), ("client_id", "partner"), ("client_secret", oauth.thirdPartySecret)])
            #expect(other.status == 200 && other.json["active"] as? Bool == false && other.json["sub"] == nil)
            let own = try await oauth.post("/oauth/introspect", [("token", token), ("client_id", "web-app"), ("client_secret", oauth.confidentialSecret)])
            #expect(own.json["active"] as? Bool == true)
        }
        let secret = String(repeating: "r", count: 40)
        try await oauth.gatehouse.app.services.tokens.registry.apply(ClientRegistration(
            id: "api", name: "API", kind: .confidential, grantTypes: ["client_credentials"], metadata: #"{"introspect_any": true}"#), secret: secret)
        let resourceServer = try await oauth.post("/oauth/introspect", [("token", access), ("client_id", "api"), ("client_secret", secret)])
        #expect(resourceServer.json["active"] as? Bool == true && resourceServer.json["client_id"] as? String == "web-app")
    }

    // Item 12: no display name means no `name` claim, never the email.
    @Test func nameNeverFallsBackToTheEmail() async throws {
        let oauth = try await OAuthFixture.make()
        let nameless = oauth.gatehouse.browser(ip: "10.1.1.1")
        _ = try await nameless.submit("/sign-up", to: "/sign-up", [("email", "nameless@example.com"), ("password", "correct horse battery"), ("name", "")])
        // Tokens need a confirmed address: confirm it as the mailed link would.
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "nameless@example.com"))
        try await oauth.gatehouse.database.users.update(id: user.id, [.emailVerified(true)], at: oauth.gatehouse.clock.now)
        let tokens = try await oauth.token([("grant_type", "password"), ("username", "nameless@example.com"), ("password", "correct horse battery"),
                                            ("scope", "openid profile")], basic: ("web-app", oauth.confidentialSecret))
        let idToken = try #require(tokens.json["id_token"] as? String)
        #expect(OAuthFixture.claims(idToken)["name"] == nil && OAuthFixture.claims(idToken)["email"] == nil)
        let info = try await oauth.client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(tokens.json["access_token"] as! String)"])
        #expect(info.status == 200 && !info.text.contains("nameless@example.com"))
    }

    // Item 19: client_secret_basic is form-encoded first (RFC 6749 §2.3.1): '+' is a space, %XX a byte.
    @Test func basicCredentialsAreFormDecoded() async throws {
        let oauth = try await OAuthFixture.make()
        let secret = "a secret+with spaces, plus & percent % signs!"
        try await oauth.gatehouse.app.services.tokens.registry.apply(ClientRegistration(
            id: "svc.one", name: "Service", kind: .confidential, grantTypes: ["client_credentials"]), secret: secret)
        // application/x-www-form-urlencoded as RFC 6749 Appendix B writes it: spaces as '+'.
        let encoded = { (text: String) in URLEncodedForm(pairs: [("x", text)]).encoded.dropFirst(2).replacingOccurrences(of: "%20", with: "+") }
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        headers.set("Authorization", "Basic " + Data("\(encoded("svc.one")):\(encoded(secret))".utf8).base64EncodedString())
        #expect(encoded(secret).contains("+"), "the encoding under test uses '+' for spaces")
        let response = try await oauth.post("/oauth/token", [("grant_type", "client_credentials")], headers: headers)
        #expect(response.status == 200, "\(response.json)")
    }

    // Item 15: a code replayed while it is being redeemed, raced for real: nothing it issued survives.
    @Test func codeReplayedDuringRedemptionRevokesEverything() async throws {
        let oauth = try await OAuthFixture.make()
        for _ in 0..<5 {
            let code = try #require(try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"),
                ("redirect_uri", OAuthFixture.redirect), ("scope", "openid offline_access")]).query["code"])
            let form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)]
            let results = try await withThrowingTaskGroup(of: (Int, String?, String?).self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let r = try await oauth.token(form, basic: ("web-app", oauth.confidentialSecret))
                        return (r.status, r.json["refresh_token"] as? String, r.json["access_token"] as? String)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0.0 == 200 }.count <= 1)
            for (status, refresh, access) in results where status == 200 {
                #expect(try await Self.refresh(oauth, try #require(refresh)).json["error"] as? String == "invalid_grant")
                #expect(try await Self.userinfoStatus(oauth, try #require(access)) == 401)
            }
        }
    }

    // Item 15: a used code is remembered past its expiry (and past the purge), so a late replay still revokes.
    @Test func lateReplayAfterPurgeStillRevokes() async throws {
        let oauth = try await OAuthFixture.make()
        let code = try #require(try await oauth.authorize([("response_type", "code"), ("client_id", "web-app"),
            ("redirect_uri", OAuthFixture.redirect), ("scope", "openid offline_access")]).query["code"])
        let form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthFixture.redirect)]
        let tokens = try await oauth.token(form, basic: ("web-app", oauth.confidentialSecret))
        let refresh = try #require(tokens.json["refresh_token"] as? String)
        oauth.gatehouse.clock.advance(3600)
        _ = try await oauth.gatehouse.database.authorizationCodes.purgeExpired(now: oauth.gatehouse.clock.identityClock.now(), limit: 1000)
        let replay = try await oauth.token(form, basic: ("web-app", oauth.confidentialSecret))
        #expect(replay.json["error"] as? String == "invalid_grant")
        #expect(try await Self.refresh(oauth, refresh).json["error"] as? String == "invalid_grant")
    }

    // Item 22: with a grace window, concurrent reuse returns one successor, never a second live branch.
    @Test func graceWindowNeverForksTheFamily() async throws {
        let oauth = try await OAuthFixture.make { $0.oauth.refreshGraceWindow = 30 }
        let tokens = try await Self.webTokens(oauth)
        let refresh = try #require(tokens["refresh_token"] as? String)
        let results = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<6 { group.addTask { let r = try await Self.refresh(oauth, refresh); return (r.status, r.json["refresh_token"] as? String) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let successors = Set(results.compactMap(\.1))
        #expect(successors.count == 1, "one successor for every retry inside the window: \(results.map(\.0))")
        // The successor works and is the family's only live branch; the retry inside the window still gets it.
        oauth.gatehouse.clock.advance(5)
        let retry = try await Self.refresh(oauth, refresh)
        #expect(retry.json["refresh_token"] as? String == successors.first)
        let next = try await Self.refresh(oauth, try #require(successors.first))
        #expect(next.status == 200)
        #expect(try await Self.refresh(oauth, refresh).status == 400, "the old token no longer yields anything once its successor moved on")
    }

    // Item 5: password change, "End all other sessions" and disabling end refresh families and their access tokens.
    @Test func credentialResetsEndOAuthGrants() async throws {
        let oauth = try await OAuthFixture.make()
        var tokens = try await Self.webTokens(oauth)
        let changed = try await oauth.browser.submit("/account", to: "/account/password", [("current_password", "correct horse battery"),
                                                                                        ("new_password", "another horse battery")])
        #expect(changed.status == 303)
        #expect(try await Self.refresh(oauth, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
        #expect(try await Self.userinfoStatus(oauth, tokens["access_token"] as! String) == 401)

        tokens = try await Self.webTokens(oauth)
        let ended = try await oauth.browser.submit("/account", to: "/account/sessions/end-others", [])
        #expect(ended.status == 303)
        #expect(try await Self.refresh(oauth, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant")
        #expect(try await Self.userinfoStatus(oauth, tokens["access_token"] as! String) == 401)

        tokens = try await Self.webTokens(oauth)
        let user = try #require(try await oauth.gatehouse.database.users.find(email: "ada@example.com"))
        try await oauth.gatehouse.app.services.accounts.setDisabled(userId: user.id, true, context: .unknown)
        try await oauth.gatehouse.app.services.accounts.setDisabled(userId: user.id, false, context: .unknown)
        #expect(try await Self.refresh(oauth, tokens["refresh_token"] as! String).json["error"] as? String == "invalid_grant",
                "re-enabling does not bring grants back")
        #expect(try await Self.userinfoStatus(oauth, tokens["access_token"] as! String) == 401)
    }
}
