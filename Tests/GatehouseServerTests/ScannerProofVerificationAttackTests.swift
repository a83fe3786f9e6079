import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

/// A mail scanner (Safe Links style: a GET without cookies, possibly a click) must not make an attacker-created
/// account verified while the attacker keeps its password. The link's GET shows a page; its POST proves; the
/// sign-up's password survives only in the creator's own session or when the prover types it.
@Suite struct ScannerProofVerificationAttackTests {
    static func attackerAccount(_ gatehouse: TestGatehouse) async throws -> (BrowserLikeClient, String) {
        let attacker = try await gatehouse.signedUpBrowser(email: "victim@example.com", password: "attacker password", verify: false)
        let link = try #require(await gatehouse.mailer.link(to: "victim@example.com", containing: "/email/verify/"))
        return (attacker, link)
    }

    @Test func aScannersGetProvesNothing() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (attacker, link) = try await Self.attackerAccount(gatehouse)
        let scanner = InProcessClient(gatehouse.app.pipeline, remoteAddress: "40.94.0.1")
        for _ in 0..<3 {
            let opened = try await scanner.get(link)
            #expect(opened.status == 200 && opened.text.contains("Confirm my email address"))
            #expect(opened.headers["Cache-Control"] == "no-store")
        }
        #expect(try await gatehouse.database.users.find(email: "victim@example.com")?.emailVerified == false)
        #expect(try await attacker.get("/account").status == 200)
    }

    @Test func confirmingWithoutThePasswordClearsItAndEndsTheCreatorsSession() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (attacker, link) = try await Self.attackerAccount(gatehouse)
        // The owner (or a scanner that clicks) submits the rendered form, without the attacker's password.
        let owner = gatehouse.browser(ip: "198.51.100.4")
        let confirmed = try await owner.submit(link, to: link, [("password", "")])
        #expect(confirmed.status == 303)
        let resetPage = try #require(confirmed.headers["Location"])
        #expect(resetPage.hasPrefix("/password/reset/"))
        let user = try #require(try await gatehouse.database.users.find(email: "victim@example.com"))
        #expect(user.emailVerified && user.passwordHash == nil, "proven, and the creator's password is gone")
        #expect(try await attacker.get("/account").status == 303, "the creator's session ended")
        let stale = try await gatehouse.browser(ip: "192.0.2.50").submit("/sign-in", to: "/sign-in",
                                                                        [("email", "victim@example.com"), ("password", "attacker password")])
        #expect(stale.status == 401)
        // The prover chooses a password on the page the redirect names.
        let chosen = try await owner.submit(resetPage, to: String(resetPage.prefix { $0 != "?" }), [("new_password", "the owners own password")])
        #expect(chosen.status == 200)
        let signIn = try await owner.submit("/sign-in", to: "/sign-in", [("email", "victim@example.com"), ("password", "the owners own password")])
        #expect(signIn.status == 303)
    }

    @Test func theCreatorKeepsThePasswordInTheirSessionOrByTypingIt() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (creator, link) = try await Self.attackerAccount(gatehouse)
        let inSession = try await creator.submit(link, to: link, [])
        #expect(inSession.status == 303 && inSession.headers["Location"] == "/account?notice=email-verified")
        #expect(try await gatehouse.database.users.find(email: "victim@example.com")?.passwordHash != nil)

        let other = try await gatehouse.signedUpBrowser(email: "grace@example.com", password: "graces password", verify: false)
        _ = try await other.submit("/account", to: "/sign-out", [])
        let graceLink = try #require(await gatehouse.mailer.link(to: "grace@example.com", containing: "/email/verify/"))
        let wrong = try await other.submit(graceLink, to: graceLink, [("password", "not graces password")])
        #expect(wrong.status == 401 && wrong.text.contains("not the account"))
        #expect(try await gatehouse.database.users.find(email: "grace@example.com")?.emailVerified == false)
        // The page again, with a fresh link in its form: the right password confirms and keeps it.
        let retry = try #require(wrong.text.range(of: #"action="/email/verify/[^"]+""#, options: .regularExpression)
            .map { String(wrong.text[$0].dropFirst(8).dropLast()) })
        let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: wrong.text))
        let right = try await other.post(retry, [("csrf_token", csrf), ("password", "graces password")])
        #expect(right.status == 200 && right.text.contains("Email confirmed"))
        let grace = try #require(try await gatehouse.database.users.find(email: "grace@example.com"))
        #expect(grace.emailVerified && grace.passwordHash != nil)
    }
}
