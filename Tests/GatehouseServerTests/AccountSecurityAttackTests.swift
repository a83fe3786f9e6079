import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseSQLite
import GatehouseStore
import GatehouseTesting
import Testing

/// Attacks on the account pages, in-process.
@Suite struct AccountSecurityAttackTests {
    /// Item 6: the access log shows route patterns, never the secret in a reset or verify path.
    @Test func accessLogNeverShowsPathSecrets() async throws {
        var configuration = try GatehouseConfiguration.load(environment: [:])
        configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let lines = Recorder<String>(), mailer = RecordingMailer()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { lines.append($0) }, mailer: mailer)
        let browser = BrowserLikeClient(InProcessClient(app.pipeline))
        _ = try await browser.submit("/sign-up", to: "/sign-up", [("email", "ada@example.com"), ("password", "correct horse battery")])
        let verify = try #require(await mailer.link(to: "ada@example.com", containing: "/email/verify/"))
        #expect(try await browser.submit(verify, to: verify, [("password", "correct horse battery")]).status == 200)
        _ = try await browser.submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        let reset = try #require(await mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        #expect(try await browser.submit(reset, to: reset, [("new_password", "a brand new password")]).status == 200)
        _ = try await browser.get(reset + "/more/segments")
        let secrets = [verify, reset].map { String($0.split(separator: "/").last!) }
        let log = lines.all.joined()
        for secret in secrets { #expect(!log.contains(secret), "a path secret reached the access log") }
        #expect(log.contains(#""path":"/email/verify/{token}""#) && log.contains(#""path":"/password/reset/{token}""#))
        #expect(log.contains(#""path":"/password/…""#), "an unmatched path logs only its first segment")
    }

    /// Item 6: what an unmatched request logs.
    @Test func loggedPathKeepsOnlyPlainFirstSegments() throws {
        func logged(_ target: String, route: String? = "(unmatched)") throws -> String {
            var request = try Request(method: .get, target: target)
            request.route = route
            return AccessLogMiddleware.loggedPath(request)
        }
        #expect(try logged("/", route: nil) == "/")
        #expect(try logged("/account") == "/account")
        #expect(try logged("/x/secret-token") == "/x/…")
        #expect(try logged("/Zm9vYmFyYmF6cXV1eGZvb2JhcmJhenF1dXhmb29iYXI") == "/{unmatched}")
        #expect(try logged("/password/reset/abc", route: "/password/reset/{token}") == "/password/reset/{token}")
    }

    /// Item 14: sign-out endpoints send a clearing cookie only to a client that presented a session cookie.
    @Test func logoutEndpointsClearOnlyPresentedCookies() async throws {
        let gatehouse = try await TestGatehouse.make()
        let stranger = gatehouse.browser()
        let signOut = try await stranger.submit("/sign-in", to: "/sign-out", [])
        #expect(signOut.status == 303)
        #expect(!signOut.headers.values("Set-Cookie").contains { $0.hasPrefix("gatehouse_session=") })
        let oidc = try await stranger.get("/oauth/logout")
        #expect(!oidc.headers.values("Set-Cookie").contains { $0.hasPrefix("gatehouse_session=") })
        let native = try await stranger.send(.post, "/native/sign-out", headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(native.status == 200 && native.headers.values("Set-Cookie").isEmpty)
        // With a session, the clearing cookie does go out.
        let user = try await gatehouse.signedUpBrowser()
        let out = try await user.submit("/account", to: "/sign-out", [])
        #expect(out.headers.values("Set-Cookie").contains { $0.hasPrefix("gatehouse_session=") && $0.contains("Max-Age=0") })
    }

    /// Item 14: `/native/sign-out` refuses another site's request (Origin / Sec-Fetch-Site) and leaves the session alive.
    @Test func nativeSignOutRefusesCrossSiteRequests() async throws {
        let gatehouse = try await TestGatehouse.make()
        let user = try await gatehouse.signedUpBrowser()
        for headers: HTTPHeaders in [["Origin": "https://evil.example", "Content-Type": "application/json"],
                                     ["Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"],
                                     ["Origin": "null", "Content-Type": "application/x-www-form-urlencoded"]] {
            let refused = try await user.send(.post, "/native/sign-out", headers: headers, body: Array("{}".utf8))
            #expect(refused.status == 403 && refused.text.contains("invalid_request"))
            #expect(refused.headers.values("Set-Cookie").isEmpty)
        }
        #expect(try await user.get("/account").status == 200, "still signed in")
        let own = try await user.send(.post, "/native/sign-out", headers: ["Origin": "http://127.0.0.1:8080", "Content-Type": "application/json"],
                                      body: Array("{}".utf8))
        #expect(own.status == 200)
        #expect(try await user.get("/account").status == 303)
    }

    /// Item 21: current-password checks are limited per account, so a stolen session is no password oracle:
    /// after five tries even the right password waits; another account is unaffected.
    @Test func currentPasswordChecksAreRateLimitedPerAccount() async throws {
        let gatehouse = try await TestGatehouse.make()
        let thief = try await gatehouse.signedUpBrowser()
        for guess in 0..<5 {
            let wrong = try await thief.submit("/account", to: "/account/password",
                                               [("current_password", "guess number \(guess)"), ("new_password", "a brand new password")])
            #expect(wrong.status == 401)
        }
        let right = try await thief.submit("/account", to: "/account/password",
                                           [("current_password", "correct horse battery"), ("new_password", "a brand new password")])
        #expect(right.status == 429 && right.headers["Retry-After"] != nil)
        gatehouse.clock.advance(600)   // not a recent sign-in any more: deleting needs the password, and is limited too
        let delete = try await thief.submit("/account/delete", to: "/account/delete", [("password", "correct horse battery"),
                                                                                    ("confirm_email", "ada@example.com")])
        #expect(delete.status == 429)
        #expect(try await gatehouse.database.users.count() == 1)
        let other = try await gatehouse.signedUpBrowser(email: "bob@example.com")
        let bob = try await other.submit("/account", to: "/account/password",
                                         [("current_password", "correct horse battery"), ("new_password", "a brand new password")])
        #expect(bob.status == 303)
        gatehouse.clock.advance(901)
        let later = try await thief.submit("/account", to: "/account/password",
                                           [("current_password", "correct horse battery"), ("new_password", "a brand new password")])
        #expect(later.status == 303, "the window passed")
    }
}

/// An account whose address is unproven gets no tokens — not by the password grant, not
/// by redeeming a code — until the owner proves the address (AccountStanding, checked where tokens are issued).
@Suite struct UnverifiedAccountTokenTests {
    @Test func unverifiedAccountGetsNoTokensUntilItIsVerified() async throws {
        let oauth = try await OAuthFixture.make()
        let gatehouse = oauth.gatehouse
        let browser = try await gatehouse.signedUpBrowser(email: "eve@example.com", verify: false)
        let password = [("grant_type", "password"), ("username", "eve@example.com"), ("password", "correct horse battery"),
                        ("scope", "openid")]
        let refused = try await oauth.token(password, basic: ("web-app", oauth.confidentialSecret))
        #expect(refused.status == 400 && refused.json["error"] as? String == "invalid_grant")
        #expect(refused.json["access_token"] == nil)
        let verifier = PKCE.generateVerifier()
        let authorized = try await oauth.authorize([("response_type", "code"), ("client_id", "native-app"),
                                                    ("redirect_uri", "com.example.app:/callback"), ("scope", "openid"), ("state", "s"),
                                                    ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")],
                                                   browser: browser)
        #expect(authorized.status == 403 && authorized.query["code"] == nil, "no code for an unproven account")
        let page = try await browser.get("/oauth/authorize?" + URLEncodedForm(pairs: [
            ("response_type", "code"), ("client_id", "native-app"), ("redirect_uri", "com.example.app:/callback"), ("scope", "openid"),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256")]).encoded)
        #expect(page.text.contains("Confirm your email address first"))
        let link = try #require(await gatehouse.mailer.link(to: "eve@example.com", containing: "/email/verify/"))
        #expect(try await browser.submit(link, to: link, []).status == 303, "verified in the browser that signed up")
        let granted = try await oauth.token(password, basic: ("web-app", oauth.confidentialSecret))
        #expect(granted.status == 200 && granted.json["access_token"] != nil)
    }
}

/// The configuration keys behind items 2 and 21: `trusted_email` per OIDC provider, `link_max_sign_in_age_seconds`.
@Suite struct SecurityConfigurationTests {
    @Test func trustedEmailAndLinkAgeAreRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-sec-\(UUID().uuidString).json").path
        try Data(#"""
            {"providers": {"link_max_sign_in_age_seconds": 120, "oidc": [
              {"id": "okta", "issuer": "https://okta.example.com", "client_id": "c", "client_secret": "s", "trusted_email": true},
              {"id": "corp", "issuer": "https://corp.example.com", "client_id": "c", "client_secret": "s"}]}}
            """#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let providers = try GatehouseConfiguration.load(environment: ["GATEHOUSE_CONFIG": path]).providers
        #expect(providers.linkMaxSignInAge == 120)
        #expect(providers.trustsEmail(of: "okta") && !providers.trustsEmail(of: "corp"))
    }

    @Test func badValuesNameTheKey() throws {
        for (json, key) in [(#"{"providers": {"link_max_sign_in_age_seconds": 5}}"#, "providers.link_max_sign_in_age_seconds"),
                            (#"{"providers": {"oidc": [{"id": "okta", "issuer": "https://o.example.com", "client_id": "c", "client_secret": "s", "trusted_email": "yes"}]}}"#,
                             "providers.oidc[0].trusted_email")] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-sec-\(UUID().uuidString).json").path
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect { try GatehouseConfiguration.load(environment: ["GATEHOUSE_CONFIG": path]) } throws: { error in
                String(describing: error).contains(key)
            }
        }
    }
}

/// The owner's first proof of the address also ends the OAuth grants and consents an
/// unproven account collected (rows written before this rule, or by any other path).
@Suite struct EmailOwnershipClaimTests {
    @Test func verificationRemovesGrantsAndConsentsAndKeepsOnlyTheProvingSession() async throws {
        let oauth = try await OAuthFixture.make()
        let gatehouse = oauth.gatehouse
        let attacker = try await gatehouse.signedUpBrowser(email: "eve@example.com", verify: false)
        let user = try #require(try await gatehouse.database.users.find(email: "eve@example.com"))
        let now = gatehouse.clock.now
        try await gatehouse.database.refreshTokens.create(RefreshToken(
            hash: TokenHash(SHA256.hash("planted")), familyId: "f-planted", clientId: "web-app", userId: user.id, scope: "openid",
            authTime: now, authMethods: ["pwd"], createdAt: now, expiresAt: now.addingTimeInterval(86_400)))
        try await gatehouse.database.consents.save(Consent(userId: user.id, clientId: "partner", scopes: ["openid"], grantedAt: now))
        #expect(try await gatehouse.database.refreshTokens.activeGrants(userId: user.id, now: now).count == 1)
        // The owner opens the link in a browser of their own (no session of this account).
        let owner = gatehouse.browser()
        let link = try #require(await gatehouse.mailer.link(to: "eve@example.com", containing: "/email/verify/"))
        #expect(try await owner.submit(link, to: link, []).status == 303, "confirmed, and asked to choose a password")
        #expect(try await gatehouse.database.refreshTokens.activeGrants(userId: user.id, now: now).isEmpty)
        #expect(try await gatehouse.database.consents.list(userId: user.id).isEmpty)
        #expect(try await attacker.get("/account").status == 303, "the creator's session ended")
        #expect(try await gatehouse.database.users.find(email: "eve@example.com")?.emailVerified == true)
        #expect(try await gatehouse.auditTypes(email: "eve@example.com").contains("account.claimed"))
    }
}
