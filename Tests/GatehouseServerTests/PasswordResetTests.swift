import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

@Suite struct PasswordResetTests {
    @Test func resetThroughTheEmailedLinkEndsEverySession() async throws {
        let gatehouse = try await TestGatehouse.make()
        let signedIn = try await gatehouse.signedUpBrowser()
        let browser = gatehouse.browser()
        let request = try await browser.submit("/password/forgot", to: "/password/forgot", [("email", "ADA@example.com")])
        #expect(request.status == 200 && request.text.contains("Check your email"))
        try await waitForMail(gatehouse, count: 2)
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        let weak = try await browser.submit(link, to: link, [("new_password", "short")])
        #expect(weak.status == 422, "a weak password does not spend the link")
        let done = try await browser.submit(link, to: link, [("new_password", "a brand new password")])
        #expect(done.status == 200 && done.text.contains("Password changed"))
        #expect(try await signedIn.get("/account").status == 303, "every session ended")
        let reused = try await browser.submit(link, to: link, [("new_password", "yet another password")])
        #expect(reused.status == 400 && reused.text.contains("not valid any more"))
        let signIn = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "a brand new password")])
        #expect(signIn.status == 303)
        let types = try await gatehouse.auditTypes(email: "ada@example.com")
        #expect(types.contains("password.reset_requested") && types.contains("password.reset"))
    }

    /// Forgot-password answers the same and does the same work for an unknown address:
    /// one audit entry and one mail each (the unknown address is told no account uses it), counted, not timed.
    @Test func unknownEmailGetsTheSameAnswerAndTheSameWork() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        try await waitForMail(gatehouse, count: 1)
        let mailsBefore = gatehouse.mailer.sent.count
        let auditBefore = try await gatehouse.database.auditLog.count(userId: nil)
        let known = try await gatehouse.browser().submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        let unknown = try await gatehouse.browser().submit("/password/forgot", to: "/password/forgot", [("email", "zed@example.com")])
        #expect(known.status == unknown.status)
        #expect(known.text.replacingOccurrences(of: "ada@example.com", with: "X").replacingOccurrences(of: "zed@example.com", with: "X")
            .replacingOccurrences(of: #"value="[^"]*""#, with: "", options: .regularExpression)
            == unknown.text.replacingOccurrences(of: "ada@example.com", with: "X").replacingOccurrences(of: "zed@example.com", with: "X")
            .replacingOccurrences(of: #"value="[^"]*""#, with: "", options: .regularExpression))
        try await waitForMail(gatehouse, count: mailsBefore + 2)
        #expect(gatehouse.mailer.sent.count == mailsBefore + 2, "one mail each")
        #expect(gatehouse.mailer.sent.all.filter { $0.to == "zed@example.com" }.count == 1)
        #expect(gatehouse.mailer.sent.all.filter { $0.to == "ada@example.com" && $0.textBody.contains("/password/reset/") }.count == 1)
        #expect(try await gatehouse.database.auditLog.count(userId: nil) == auditBefore + 2, "one audit entry each")
    }

    @Test func expiredLinkIsRefused() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        _ = try await gatehouse.browser().submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        try await waitForMail(gatehouse, count: 2)
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        gatehouse.clock.advance(31 * 60)
        let response = try await gatehouse.browser().submit(link, to: link, [("new_password", "a brand new password")])
        #expect(response.status == 400)
    }

    @Test func passwordChangeVoidsPendingLinks() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        _ = try await gatehouse.browser().submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        try await waitForMail(gatehouse, count: 2)
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        _ = try await browser.submit("/account", to: "/account/password", [("current_password", "correct horse battery"), ("new_password", "a brand new password")])
        let response = try await gatehouse.browser().submit(link, to: link, [("new_password", "an attacker password")])
        #expect(response.status == 400)
    }

    @Test func forgotIsRateLimitedPerIP() async throws {
        let gatehouse = try await TestGatehouse.make()
        var statuses: [Int] = []
        for i in 0..<11 {
            statuses.append(try await gatehouse.browser(ip: "192.0.2.50").submit("/password/forgot", to: "/password/forgot", [("email", "u\(i)@example.com")]).status)
        }
        #expect(statuses.last == 429)
        #expect(statuses.dropLast().allSatisfy { $0 == 200 })
    }

    @Test func emailVerificationLinkWorksOnce() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser(verify: false)
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/email/verify/"))
        #expect(try await browser.get(link).status == 200, "the link shows a page")
        #expect(try await gatehouse.database.users.find(email: "ada@example.com")?.emailVerified == false)
        let verified = try await browser.submit(link, to: link, [])
        #expect(verified.status == 303 && verified.headers["Location"] == "/account?notice=email-verified")
        #expect(try await gatehouse.database.users.find(email: "ada@example.com")?.emailVerified == true)
        #expect(try await browser.submit(link, to: link, []).status == 400)
        #expect(try await browser.submit("/email/verify/garbage", to: "/email/verify/garbage", []).status == 400)
    }

    private func waitForMail(_ gatehouse: TestGatehouse, count: Int) async throws {
        for _ in 0..<100 where gatehouse.mailer.sent.count < count { try await Task.sleep(for: .milliseconds(10)) }
    }
}
