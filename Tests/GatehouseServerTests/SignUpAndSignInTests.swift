import Foundation
import GatehouseHTTP
import GatehouseStore
import GatehouseTesting
import Testing

@Suite struct SignUpAndSignInTests {
    let sessionCookie = "gatehouse_session"

    @Test func signUpNormalisesTheEmailAndSignsInOnlyThroughSignIn() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = gatehouse.browser()
        let response = try await browser.submit("/sign-up", to: "/sign-up",
                                                [("email", "  Ada@Example.COM "), ("password", "correct horse battery"), ("name", "Ada")])
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "/sign-up/check-email")
        #expect(!response.headers.values("Set-Cookie").contains { $0.hasPrefix(sessionCookie + "=") }, "sign-up starts no session")
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        #expect(user.passwordHash?.hasPrefix("$argon2id$") == true)
        #expect(!user.emailVerified)
        #expect(await gatehouse.mailer.link(to: "ada@example.com", containing: "/email/verify/") != nil)
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("sign_up"))
        let signIn = try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        let cookie = try #require(signIn.headers.values("Set-Cookie").first { $0.hasPrefix(sessionCookie + "=") })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"), "plain-http loopback: no Secure, no __Host- prefix")
        let account = try await browser.get("/account")
        #expect(account.status == 200 && account.text.contains("ada@example.com") && account.text.contains("not confirmed yet"))
    }

    @Test func httpsUsesHostPrefixedSecureCookies() async throws {
        let gatehouse = try await TestGatehouse.make { $0.publicURL = URL(string: "https://id.example.com")! }
        let browser = gatehouse.browser()
        _ = try await browser.submit("/sign-up", to: "/sign-up", [("email", "a@example.com"), ("password", "correct horse battery")])
        let response = try await browser.submit("/sign-in", to: "/sign-in", [("email", "a@example.com"), ("password", "correct horse battery")])
        let cookie = try #require(response.headers.values("Set-Cookie").first { $0.hasPrefix("__Host-gatehouse_session=") })
        #expect(cookie.contains("; Secure") && cookie.contains("Path=/") && !cookie.contains("Domain"))
    }

    @Test(arguments: [
        ("not-an-email", "correct horse battery", 422, "valid email"),
        ("", "correct horse battery", 422, "valid email"),
        ("b@example.com", "short", 422, "at least 10"),
        ("b@example.com", "", 422, "at least 10"),
        ("b@example.com", "          ", 422, "only spaces"),
        ("b@example.com", "password123", 422, "too common"),
    ])
    func signUpRefusesBadInput(email: String, password: String, status: Int, message: String) async throws {
        let gatehouse = try await TestGatehouse.make()
        let response = try await gatehouse.browser().submit("/sign-up", to: "/sign-up", [("email", email), ("password", password)])
        #expect(response.status == status)
        #expect(response.text.contains(message))
        #expect(try await gatehouse.database.users.count() == 0, "nothing written")
    }

    /// Sign-up answers a taken address exactly as a new one (same status, same
    /// Location, no cookie), writes nothing, and mails the existing owner instead.
    @Test func signUpWithATakenAddressAnswersTheSameAndMailsTheOwner() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        let mailsBefore = gatehouse.mailer.sent.count
        let fresh = try await gatehouse.browser().submit("/sign-up", to: "/sign-up",
                                                         [("email", "new@example.com"), ("password", "another good password")])
        let again = try await gatehouse.browser().submit("/sign-up", to: "/sign-up",
                                                         [("email", "ADA@example.com"), ("password", "another good password")])
        #expect(again.status == fresh.status && again.status == 303)
        #expect(again.headers["Location"] == fresh.headers["Location"])
        #expect(again.headers.values("Set-Cookie").filter { !$0.hasPrefix("gatehouse_csrf") }
            == fresh.headers.values("Set-Cookie").filter { !$0.hasPrefix("gatehouse_csrf") })
        #expect(again.text == fresh.text)
        #expect(try await gatehouse.database.users.count() == 2, "the taken address got no second account")
        for _ in 0..<200 where gatehouse.mailer.sent.count < mailsBefore + 2 { try await Task.sleep(for: .milliseconds(10)) }
        let owners = gatehouse.mailer.sent.all.filter { $0.to == "ada@example.com" && $0.subject == "You already have an account" }
        #expect(owners.count == 1, "the owner is told, by mail")
        let page = try await gatehouse.browser().get("/sign-up/check-email")
        #expect(page.status == 200 && page.text.contains("Check your email"))
    }

    @Test func oversizedFieldsAreRefused() async throws {
        let gatehouse = try await TestGatehouse.make()
        let response = try await gatehouse.browser().submit("/sign-up", to: "/sign-up",
                                                            [("email", "a@example.com"), ("password", String(repeating: "p", count: 5000))])
        #expect(response.status == 413)
        #expect(try await gatehouse.database.users.count() == 0)
    }

    @Test func invalidUTF8FormIs400() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = gatehouse.browser()
        _ = try await browser.get("/sign-in")
        let response = try await browser.send(.post, "/sign-in", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                              body: Array("email=%FF%FE&password=x".utf8))
        #expect(response.status == 400)
    }

    @Test func missingOrWrongCSRFIs403AndChangesNothing() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = gatehouse.browser()
        _ = try await browser.get("/sign-up")
        let missing = try await browser.post("/sign-up", [("email", "c@example.com"), ("password", "correct horse battery")])
        #expect(missing.status == 403)
        let wrong = try await browser.post("/sign-up", [("csrf_token", String(repeating: "A", count: 43)),
                                                        ("email", "c@example.com"), ("password", "correct horse battery")])
        #expect(wrong.status == 403)
        // A token from another browser's page is useless here.
        let other = gatehouse.browser()
        let otherToken = BrowserLikeClient.hiddenField("csrf_token", in: try await other.get("/sign-up").text)!
        let stolen = try await browser.post("/sign-up", [("csrf_token", otherToken), ("email", "c@example.com"),
                                                         ("password", "correct horse battery")])
        #expect(stolen.status == 403)
        #expect(try await gatehouse.database.users.count() == 0)
    }

    @Test func signInSignOutAndNewSessionIdEachTime() async throws {
        let gatehouse = try await TestGatehouse.make()
        let first = try await gatehouse.signedUpBrowser()
        let firstToken = try #require(first.cookies[sessionCookie])
        let browser = gatehouse.browser()
        let signIn = try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(signIn.status == 303)
        let token = try #require(browser.cookies[sessionCookie])
        #expect(token != firstToken)
        // Signing in again from a signed-in browser replaces its session id.
        let again = try await browser.submit("/account", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(again.status == 303)
        #expect(browser.cookies[sessionCookie] != token)
        let replaced = gatehouse.browser()
        replaced.setCookie(sessionCookie, token)
        #expect(try await replaced.get("/account").status == 303, "the replaced session is gone")
        let page = try await browser.get("/account")
        let signOutToken = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
        let signOut = try await browser.post("/sign-out", [("csrf_token", signOutToken)])
        #expect(signOut.status == 303)
        #expect(browser.cookies[sessionCookie] == nil)
        // The old cookie no longer works even if replayed.
        browser.setCookie(sessionCookie, token)
        #expect(try await browser.get("/account").status == 303)
        let types = try await gatehouse.auditTypes(email: "ada@example.com")
        #expect(types.contains("sign_in.succeeded") && types.contains("sign_out"))
    }

    @Test func wrongPasswordAndUnknownEmailAnswerTheSame() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        let wrong = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "wrong password!")])
        let unknown = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", "nobody@example.com"), ("password", "wrong password!")])
        #expect(wrong.status == 401 && unknown.status == 401)
        #expect(wrong.text.contains("The email or password is not right."))
        #expect(unknown.text.contains("The email or password is not right."))
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("sign_in.failed"))
    }

    @Test func disabledUserCannotSignInAndLosesSessions() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        try await gatehouse.app.services.accounts.setDisabled(userId: user.id, true, context: .unknown)
        #expect(try await browser.get("/account").status == 303, "the existing session ended")
        let attempt = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(attempt.status == 401 && attempt.text.contains("disabled"))
    }

    @Test func returnToIsOnlyASameOriginPath() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        for (returnTo, expected) in [("/oauth/authorize?client_id=x", "/oauth/authorize?client_id=x"),
                                     ("https://evil.example/", "/account"), ("//evil.example/x", "/account"),
                                     ("/\\evil.example", "/account"), ("javascript:alert(1)", "/account")] {
            let browser = gatehouse.browser()
            let response = try await browser.submit("/sign-in?return_to=\(PercentDecoding.encode(returnTo))", to: "/sign-in",
                                                    [("email", "ada@example.com"), ("password", "correct horse battery"),
                                                     ("return_to", returnTo)])
            #expect(response.headers["Location"] == expected, "return_to \(returnTo)")
        }
    }

    @Test func signInIsRateLimitedPerAccountAndClientWithRetryAfter() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        var statuses: [Int] = []
        for _ in 0..<6 {
            let browser = gatehouse.browser(ip: "10.0.0.1")
            statuses.append(try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "wrong password!")]).status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429])
        let limited = try await gatehouse.browser(ip: "10.0.0.1").submit("/sign-in", to: "/sign-in",
                                                                         [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(limited.status == 429, "even the right password waits out the back-off, from that client")
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 > 0)
        let elsewhere = try await gatehouse.browser(ip: "10.0.0.99").submit("/sign-in", to: "/sign-in",
                                                                            [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(elsewhere.status == 303, "another client is not held back by this one's failures")
        gatehouse.clock.advance(61)
        let later = try await gatehouse.browser(ip: "10.0.0.1").submit("/sign-in", to: "/sign-in",
                                                                       [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(later.status == 303)
    }

    @Test func signInIsRateLimitedPerIP() async throws {
        let gatehouse = try await TestGatehouse.make()
        var last = 0
        for attempt in 0..<11 {
            last = try await gatehouse.browser(ip: "192.0.2.7").submit("/sign-in", to: "/sign-in",
                                                                      [("email", "user\(attempt)@example.com"), ("password", "wrong password!")]).status
        }
        #expect(last == 429)
        #expect(try await gatehouse.browser(ip: "192.0.2.8").submit("/sign-in", to: "/sign-in",
                                                                   [("email", "x@example.com"), ("password", "wrong password!")]).status == 401)
    }
}
