import Foundation
import GatehouseHTTP
import GatehouseStore
import GatehouseTesting
import Testing

@Suite struct AccountPageTests {
    let sessionCookie = "gatehouse_session"

    @Test func accountNeedsASessionAndKeepsWhereTheUserWasGoing() async throws {
        let gatehouse = try await TestGatehouse.make()
        let response = try await gatehouse.browser().get("/account")
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "/sign-in?return_to=%2Faccount")
    }

    @Test func listsSessionsAndEndsOneFromAnotherBrowser() async throws {
        let gatehouse = try await TestGatehouse.make()
        let laptop = try await gatehouse.signedUpBrowser()
        let phone = BrowserLikeClient(InProcessClient(gatehouse.app.pipeline, remoteAddress: "203.0.113.9"),
                                      userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1")
        #expect(try await phone.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")]).status == 303)
        let page = try await laptop.get("/account")
        #expect(page.text.contains("Safari on iPhone") && page.text.contains("203.0.113.9"))
        #expect(page.text.contains("(this browser)"))
        // End the phone's session from the laptop.
        let phoneHash = try #require(try await gatehouse.database.sessions.list(userId: try await userId(gatehouse), now: gatehouse.clock.now)
            .first { $0.ip == "203.0.113.9" }?.idHash.hex)
        let csrf = BrowserLikeClient.hiddenField("csrf_token", in: page.text)!
        let end = try await laptop.post("/account/sessions/\(phoneHash)/end", [("csrf_token", csrf)])
        #expect(end.status == 303 && end.headers["Location"] == "/account?notice=session-ended")
        #expect(try await phone.get("/account").status == 303, "the phone is signed out")
        #expect(try await laptop.get("/account").status == 200, "the laptop is not")
    }

    @Test func cannotEndSomeoneElsesSession() async throws {
        let gatehouse = try await TestGatehouse.make()
        let ada = try await gatehouse.signedUpBrowser()
        let bob = try await gatehouse.signedUpBrowser(email: "bob@example.com")
        let bobHash = try await gatehouse.database.sessions.list(userId: try #require(try await gatehouse.database.users.find(email: "bob@example.com")).id,
                                                                 now: gatehouse.clock.now)[0].idHash.hex
        let csrf = BrowserLikeClient.hiddenField("csrf_token", in: try await ada.get("/account").text)!
        #expect(try await ada.post("/account/sessions/\(bobHash)/end", [("csrf_token", csrf)]).status == 404)
        #expect(try await ada.post("/account/sessions/nothex/end", [("csrf_token", csrf)]).status == 404)
        #expect(try await bob.get("/account").status == 200)
    }

    @Test func endAllOthersKeepsThisOne() async throws {
        let gatehouse = try await TestGatehouse.make()
        let main = try await gatehouse.signedUpBrowser()
        var others: [BrowserLikeClient] = []
        for _ in 0..<3 {
            let other = gatehouse.browser()
            _ = try await other.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
            others.append(other)
        }
        let response = try await main.submit("/account", to: "/account/sessions/end-others", [])
        #expect(response.status == 303)
        for other in others { #expect(try await other.get("/account").status == 303) }
        #expect(try await main.get("/account").status == 200)
    }

    @Test func changingThePasswordEndsOtherSessions() async throws {
        let gatehouse = try await TestGatehouse.make()
        let main = try await gatehouse.signedUpBrowser()
        let other = gatehouse.browser()
        _ = try await other.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        let wrong = try await main.submit("/account", to: "/account/password", [("current_password", "nope nope nope"), ("new_password", "a brand new password")])
        #expect(wrong.status == 401)
        let weak = try await main.submit("/account", to: "/account/password", [("current_password", "correct horse battery"), ("new_password", "short")])
        #expect(weak.status == 422)
        let ok = try await main.submit("/account", to: "/account/password", [("current_password", "correct horse battery"), ("new_password", "a brand new password")])
        #expect(ok.status == 303)
        #expect(try await other.get("/account").status == 303)
        #expect(try await main.get("/account").status == 200)
        let old = try await gatehouse.browser(ip: "10.1.1.1").submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(old.status == 401)
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("password.changed"))
    }

    /// Deleting has its own page: the password typed there and the email typed as confirmation, however recent
    /// the sign-in (a session left open for a minute must not be enough: no "blank password within 5 minutes").
    @Test func deletingNeedsThePasswordAndTheTypedEmailOnItsOwnPage() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let page = try await browser.get("/account/delete")
        #expect(page.status == 200 && page.text.contains(#"name="password""#) && page.text.contains(#"name="confirm_email""#))
        #expect(try await browser.get("/account").text.contains(#"href="/account/delete""#))
        for (fields, status) in [([("password", ""), ("confirm_email", "ada@example.com")], 403),   // just signed in: still asked
                                 ([("password", "wrong password!"), ("confirm_email", "ada@example.com")], 401),
                                 ([("password", "correct horse battery"), ("confirm_email", "someone@example.com")], 422)] {
            let refused = try await browser.submit("/account/delete", to: "/account/delete", fields)
            #expect(refused.status == status, "\(fields)")
            #expect(try await gatehouse.database.users.count() == 1)
        }
        let deleted = try await browser.submit("/account/delete", to: "/account/delete",
                                               [("password", "correct horse battery"), ("confirm_email", " Ada@Example.com ")])
        #expect(deleted.status == 303)
        #expect(try await gatehouse.database.users.count() == 0)
        #expect(try await browser.get("/account").status == 303)
        #expect(try await gatehouse.database.auditLog.count(userId: nil) > 0, "the audit log outlives the account")
    }

    @Test func sessionsExpireWhenIdleAndAbsolutely() async throws {
        let gatehouse = try await TestGatehouse.make {
            $0.sessions.idleTimeout = 3_600
            $0.sessions.absoluteTimeout = 3 * 3_600
        }
        let browser = try await gatehouse.signedUpBrowser()
        gatehouse.clock.advance(3_000)
        #expect(try await browser.get("/account").status == 200, "use extends the idle window")
        gatehouse.clock.advance(3_000)
        #expect(try await browser.get("/account").status == 200)
        gatehouse.clock.advance(3_700)
        #expect(try await browser.get("/account").status == 303, "idle for more than an hour")
        let other = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(other.status == 303)
        let fresh = gatehouse.browser()
        fresh.setCookie(sessionCookie, try #require(other.headers.values("Set-Cookie").first?.split(separator: ";")[0].split(separator: "=")[1]).description)
        for _ in 0..<6 {
            gatehouse.clock.advance(1_800)
            _ = try await fresh.get("/account")
        }
        #expect(try await fresh.get("/account").status == 303, "past the absolute lifetime despite use")
    }

    /// The page reads its lists together with the session, before the idle-expiry touch; the
    /// row of this browser must still show the touched "last seen" time and come first (most recently seen).
    @Test func theCurrentSessionShowsTheTimeThisViewTouchedIt() async throws {
        let gatehouse = try await TestGatehouse.make()
        let laptop = try await gatehouse.signedUpBrowser()
        let phone = BrowserLikeClient(InProcessClient(gatehouse.app.pipeline, remoteAddress: "203.0.113.9"),
                                      userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Safari/604.1")
        #expect(try await phone.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")]).status == 303)
        gatehouse.clock.advance(3 * 3_600)   // well past the touch interval, and past a minute boundary
        let stamp = AccountPageTests.minute(gatehouse.clock.now)
        let page = try await laptop.get("/account").text
        // The rows as read: a time is `<time datetime>` markup around its text.
        let rows = page.components(separatedBy: "<tr>").filter { $0.contains("/account/sessions/") }
            .map { $0.replacingOccurrences(of: "<time[^>]*>|</time>", with: "", options: .regularExpression) }
        #expect(rows.count == 2)
        #expect(rows.first?.contains("(this browser)") == true, "the touched session is the most recently seen")
        #expect(rows.first?.contains("last seen \(stamp)") == true, "shows the time of this view, not the stored one")
        #expect(rows.last?.contains("last seen \(stamp)") == false)
        let stored = try #require(try await gatehouse.database.sessions.list(userId: try await userId(gatehouse), now: gatehouse.clock.now).first)
        #expect(abs(stored.lastSeenAt.timeIntervalSince(gatehouse.clock.now)) < 0.01, "and the store agrees")
    }

    /// `yyyy-MM-dd HH:mm UTC`, as the page prints times.
    static func minute(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", c.year!, c.month!, c.day!, c.hour!, c.minute!)
    }

    @Test func concurrentSignInsNeverShareASessionOrLoseAuditRows() async throws {
        let gatehouse = try await TestGatehouse.make { $0.rateLimits.signInPerIP = []; $0.rateLimits.signInPerAccount = [] }
        _ = try await gatehouse.signedUpBrowser()
        let before = try await gatehouse.database.auditLog.count(userId: nil)
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for i in 0..<40 {
                group.addTask {
                    let browser = gatehouse.browser(ip: "198.51.100.\(i)")
                    _ = try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
                    return browser.cookies["gatehouse_session"]
                }
            }
            return try await group.reduce(into: [String]()) { if let token = $1 { $0.append(token) } }
        }
        #expect(tokens.count == 40)
        #expect(Set(tokens).count == 40)
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        #expect(try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).count == 41)
        #expect(try await gatehouse.database.auditLog.count(userId: nil) - before == 40)
    }

    private func userId(_ gatehouse: TestGatehouse) async throws -> String {
        try #require(try await gatehouse.database.users.find(email: "ada@example.com")).id
    }
}
