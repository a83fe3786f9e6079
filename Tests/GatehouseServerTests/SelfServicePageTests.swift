import Foundation
import GatehouseIdentity
import GatehouseServer
import GatehouseTesting
import Testing

/// The account page's self-service through its rendered forms: the name, the email change, the data download,
/// and the branded multipart mails they send.
@Suite struct SelfServicePageTests {
    @Test func theNameIsChangedFromTheAccountPage() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        #expect(try await browser.get("/account").text.contains(#"action="/account/name""#))
        let saved = try await browser.submit("/account", to: "/account/name", [("name", "  Ada Lovelace ")])
        #expect(saved.status == 303 && saved.headers["Location"] == "/account?notice=name-changed")
        #expect(try await browser.get("/account").text.contains("<strong>Ada Lovelace</strong>"))
        let refused = try await browser.submit("/account", to: "/account/name", [("name", String(repeating: "x", count: 101))])
        #expect(refused.status == 422)
        #expect(try await gatehouse.database.users.find(email: "ada@example.com")?.displayName == "Ada Lovelace")
    }

    @Test func theEmailChangesOnlyWhenTheLinkToTheNewAddressIsUsed() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let other = gatehouse.browser(ip: "10.0.0.2")
        #expect(try await other.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")]).status == 303)
        let asked = try await browser.submit("/account", to: "/account/email", [("new_email", "ada@new.example")])
        #expect(asked.status == 303 && asked.headers["Location"] == "/account?notice=email-change-sent")
        let link = try #require(await gatehouse.mailer.link(to: "ada@new.example", containing: "/account/email/confirm/"))
        #expect(gatehouse.mailer.sent.all.contains { $0.to == "ada@example.com" && $0.textBody.contains("ada@new.example") })

        // The link's GET is a page with a button: a mail scanner's visit changes nothing.
        let page = try await gatehouse.browser(ip: "10.0.0.3").get(link)
        #expect(page.status == 200 && page.text.contains(#"method="post""#) && page.headers["Cache-Control"]?.contains("no-store") == true)
        #expect(try await gatehouse.database.users.find(email: "ada@example.com") != nil)

        let confirmed = try await browser.submit(link, to: link, [])
        #expect(confirmed.status == 303 && confirmed.headers["Location"] == "/account?notice=email-changed")
        #expect(try await browser.get("/account").text.contains("ada@new.example"))
        #expect(try await other.get("/account").status == 303, "the other session ended")
        #expect(try await browser.submit(link, to: link, []).status == 400, "single use")
        #expect(try await gatehouse.auditTypes(email: "ada@new.example").contains("email.changed"))
    }

    @Test func aTakenAddressGetsTheSameAnswerAndNoLink() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser(email: "bob@example.com", ip: "10.0.0.9")
        let browser = try await gatehouse.signedUpBrowser()
        let asked = try await browser.submit("/account", to: "/account/email", [("new_email", "BOB@example.com")])
        #expect(asked.status == 303 && asked.headers["Location"] == "/account?notice=email-change-sent")
        #expect(await gatehouse.mailer.link(to: "bob@example.com", containing: "/account/email/confirm/") == nil)
        #expect(try await gatehouse.database.users.find(email: "ada@example.com") != nil)
        #expect(try await browser.submit("/account", to: "/account/email", [("new_email", "not an address")]).status == 422)
    }

    @Test func theDataDownloadNeedsTheFreshPasswordAndIsAnAttachmentWithoutSecrets() async throws {
        let gatehouse = try await TestGatehouse.make()
        let browser = try await gatehouse.signedUpBrowser()
        let page = try await browser.get("/account/export")
        #expect(page.status == 200 && page.text.contains(#"name="password""#))
        #expect(try await browser.submit("/account/export", to: "/account/export", [("password", "")]).status == 403)
        #expect(try await browser.submit("/account/export", to: "/account/export", [("password", "wrong password!")]).status == 401)
        #expect(try await browser.submit("/account/export", to: "/account/export", []).status == 403, "a password sign-in is not fresh proof")
        let download = try await browser.submit("/account/export", to: "/account/export", [("password", "correct horse battery")])
        #expect(download.status == 200)
        #expect(download.headers["Content-Disposition"] == #"attachment; filename="account-data.json""#)
        #expect(download.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(download.text.utf8)) as? [String: Any])
        #expect((object["profile"] as? [String: Any])?["email"] as? String == "ada@example.com")
        #expect(!(object["sessions"] as? [Any] ?? []).isEmpty && !(object["audit"] as? [Any] ?? []).isEmpty)
        let hash = try #require(try await gatehouse.database.users.find(email: "ada@example.com")?.passwordHash)
        #expect(!download.text.contains(hash) && !download.text.contains("argon2"))
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").contains("account.exported"))
    }

    @Test func mailsAreMultipartBrandedAndCarryThePublicURL() async throws {
        let gatehouse = try await TestGatehouse.make { $0.branding = Branding(productName: "Acme <Cloud>") }
        _ = try await gatehouse.signedUpBrowser(verify: false)
        let mail = try #require(gatehouse.mailer.sent.all.last { $0.to == "ada@example.com" })
        let html = try #require(mail.htmlBody)
        #expect(html.hasPrefix("<!doctype html>") && html.contains("Acme &lt;Cloud&gt;") && !html.contains("Acme <Cloud>"))
        let link = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/email/verify/"))
        #expect(html.contains(#"href="http://127.0.0.1:8080\#(link)""#), "the link is clickable")
        #expect(html.contains(#"<a href="http://127.0.0.1:8080""#), "the footer names the public URL")
        #expect(mail.textBody.hasSuffix("Acme <Cloud>\nhttp://127.0.0.1:8080\n"), "the sign-off names the product, then its address")
        #expect(!mail.textBody.contains("-- \nAcme <Cloud>"), "the wording's sign-off names the product: no second one")
        #expect(!html.contains("Gatehouse") && !mail.textBody.contains("Gatehouse"))
    }
}
