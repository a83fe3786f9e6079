import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore
import Synchronization
import Testing

/// The account page's self-service use cases, each on its own: the name, the email change, a first password,
/// the data export.
@Suite struct SelfServiceTests {
    final class Mails: Mailer {
        let sent = Mutex<[MailMessage]>([])
        func send(_ message: MailMessage) async throws { sent.withLock { $0.append(message) } }
        /// The messages to `address` once `count` arrived (mail goes out in the background).
        func to(_ address: String, count: Int = 1) async -> [MailMessage] {
            for _ in 0..<300 {
                let found = sent.withLock { $0.filter { $0.to == address } }
                if found.count >= count { return found }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return sent.withLock { $0.filter { $0.to == address } }
        }
        static func link(_ message: MailMessage?, _ fragment: String) -> String? {
            message?.textBody.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.contains(fragment) }
        }
    }

    struct Fixture {
        let clock: SignInBackOffTests.Clock
        let accounts: AccountService
        let database: any GatehouseDatabase
        let links: EmailLinks
        let sessions: SessionService
        let mails: Mails
        let ada: User
        let context = ClientContext(ip: "192.0.2.1", userAgent: "Test")

        static func make() async throws -> Fixture {
            let clock = SignInBackOffTests.Clock()
            let (accounts, database) = try await SignInBackOffTests.accounts(clock)
            let mails = Mails()
            let links = EmailLinks(users: database.users, oneTimeTokens: database.oneTimeTokens, passkeys: database.webAuthnCredentials,
                                   rateLimits: database.rateLimits, mailer: mails, accounts: accounts, audit: AuditTrail(store: database.auditLog),
                                   clock: clock.identity, absoluteURL: { "https://id.example.test" + $0 })
            let ada = try #require(try await database.users.find(email: "ada@example.com"))
            return Fixture(clock: clock, accounts: accounts, database: database, links: links,
                           sessions: SessionService(database: database, clock: clock.identity), mails: mails, ada: ada)
        }

        func token(of link: String?) throws -> String { String(try #require(link?.split(separator: "/").last)) }
    }

    @Test(arguments: [("  Ada Lovelace  ", "Ada Lovelace" as String?), ("", nil), ("   ", nil), (String(repeating: "é", count: 100), String(repeating: "é", count: 100))])
    func aNameIsTrimmedAndBlankClearsIt(input: String, stored: String?) async throws {
        let fixture = try await Fixture.make()
        let user = try await fixture.accounts.changeName(userId: fixture.ada.id, to: input, context: fixture.context)
        #expect(user.displayName == stored)
        #expect(try await fixture.database.users.find(id: fixture.ada.id)?.displayName == stored)
    }

    @Test(arguments: [String(repeating: "x", count: 101), "Ada\nBcc: eve@example.test", "Ada\u{0}", "Tab\tname"])
    func aLongOrMultiLineNameIsRefusedAndNothingChanges(input: String) async throws {
        let fixture = try await Fixture.make()
        await #expect(throws: AccountError.invalidName) {
            try await fixture.accounts.changeName(userId: fixture.ada.id, to: input, context: fixture.context)
        }
        #expect(try await fixture.database.users.find(id: fixture.ada.id)?.displayName == nil)
    }

    @Test(arguments: ["not an address", "ADA@example.com", ""])
    func anInvalidOrUnchangedAddressIsRefused(address: String) async throws {
        let fixture = try await Fixture.make()
        await #expect(throws: AccountError.invalidEmail) {
            _ = try await fixture.links.requestEmailChange(user: fixture.ada, to: address, context: fixture.context)
        }
    }

    @Test func theNewAddressGetsTheLinkTheOldANoticeAndNothingChangesUntilItIsUsed() async throws {
        let fixture = try await Fixture.make()
        let kept = try await fixture.sessions.start(userId: fixture.ada.id, methods: ["pwd"], context: fixture.context)
        let other = try await fixture.sessions.start(userId: fixture.ada.id, methods: ["pwd"], context: fixture.context)
        #expect(try await fixture.links.requestEmailChange(user: fixture.ada, to: " Ada@New.example ", context: fixture.context) == .sent)
        let toNew = await fixture.mails.to("ada@new.example")
        let notice = await fixture.mails.to("ada@example.com")
        let link = try #require(Mails.link(toNew.first, "/account/email/confirm/"))
        #expect(link.hasPrefix("https://id.example.test/account/email/confirm/"))
        let token = try fixture.token(of: link)
        #expect(notice.count == 1 && notice[0].textBody.contains("ada@new.example") && !notice[0].textBody.contains(token))
        #expect(try await fixture.database.users.find(id: fixture.ada.id)?.email == "ada@example.com", "nothing changes before the link")
        try await fixture.links.requestPasswordReset(email: "ada@example.com", context: fixture.context)

        let moved = try await fixture.links.confirmEmailChange(token: fixture.token(of: link), presentedSession: (kept.token, fixture.ada.id),
                                                               context: fixture.context)
        #expect(moved.email == "ada@new.example" && moved.emailVerified)
        #expect(try await fixture.database.users.find(email: "ada@example.com") == nil)
        #expect(try await fixture.sessions.resolve(token: kept.token) != nil, "the session that presented the proof stays")
        #expect(try await fixture.sessions.resolve(token: other.token) == nil, "every other session ends")
        let resetLink = Mails.link(await fixture.mails.to("ada@example.com", count: 2).last, "/password/reset/")
        await #expect(throws: AccountError.invalidToken, "a reset link mailed to the old address is void") {
            _ = try await fixture.links.resetPassword(token: try fixture.token(of: resetLink), newPassword: "a brand new password", context: fixture.context)
        }
        await #expect(throws: AccountError.invalidToken, "single use") {
            _ = try await fixture.links.confirmEmailChange(token: try fixture.token(of: link), context: fixture.context)
        }
        let types = try await fixture.database.auditLog.list(userId: fixture.ada.id, limit: 50).map(\.event.type)
        #expect(types.contains("email.change_requested") && types.contains("email.changed"))
    }

    @Test func aNewerRequestVoidsTheOlderLinkAndLinksExpire() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.links.requestEmailChange(user: fixture.ada, to: "first@new.example", context: fixture.context)
        let first = try #require(Mails.link(await fixture.mails.to("first@new.example").first, "/account/email/confirm/"))
        _ = try await fixture.links.requestEmailChange(user: fixture.ada, to: "second@new.example", context: fixture.context)
        let second = try #require(Mails.link(await fixture.mails.to("second@new.example").first, "/account/email/confirm/"))
        await #expect(throws: AccountError.invalidToken) {
            _ = try await fixture.links.confirmEmailChange(token: try fixture.token(of: first), context: fixture.context)
        }
        fixture.clock.advance(EmailLinks.emailChangeLifetime + 1)
        await #expect(throws: AccountError.invalidToken) {
            _ = try await fixture.links.confirmEmailChange(token: try fixture.token(of: second), context: fixture.context)
        }
        #expect(try await fixture.database.users.find(id: fixture.ada.id)?.email == "ada@example.com")
    }

    @Test func aTakenAddressGetsNoLinkAndItsOwnerOnlyANote() async throws {
        let fixture = try await Fixture.make()
        let bob = try await fixture.accounts.createByOperator(email: "bob@example.com", password: nil, displayName: nil, verified: true)
        #expect(try await fixture.links.requestEmailChange(user: fixture.ada, to: "bob@example.com", context: fixture.context) == .addressTaken)
        let toBob = await fixture.mails.to(bob.email)
        #expect(toBob.count == 1 && Mails.link(toBob.first, "/account/email/confirm/") == nil)
        #expect(!(toBob.first?.textBody.contains("ada@example.com") ?? true), "the note does not name who asked")
        #expect(await fixture.mails.to("ada@example.com").isEmpty, "no notice: nothing is pending")
    }

    @Test func anAddressTakenMeanwhileIsRefusedAtConfirmation() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.links.requestEmailChange(user: fixture.ada, to: "late@new.example", context: fixture.context)
        let link = try #require(Mails.link(await fixture.mails.to("late@new.example").first, "/account/email/confirm/"))
        _ = try await fixture.accounts.createByOperator(email: "late@new.example", password: nil, displayName: nil, verified: false)
        await #expect(throws: AccountError.emailTaken) {
            _ = try await fixture.links.confirmEmailChange(token: try fixture.token(of: link), context: fixture.context)
        }
        #expect(try await fixture.database.users.find(id: fixture.ada.id)?.email == "ada@example.com")
    }

    @Test func aProviderOnlyAccountGetsALinkToSetAPasswordAndAPasswordAccountDoesNot() async throws {
        let fixture = try await Fixture.make()
        await #expect(throws: AccountError.invalidCredentials) {
            try await fixture.links.requestPasswordSetup(user: fixture.ada, context: fixture.context)
        }
        let lin = try await fixture.accounts.createByOperator(email: "lin@example.com", password: nil, displayName: nil, verified: true)
        #expect(try await fixture.links.requestPasswordSetup(user: lin, context: fixture.context))
        let link = try #require(Mails.link(await fixture.mails.to("lin@example.com").first, "/password/reset/"))
        _ = try await fixture.links.resetPassword(token: try fixture.token(of: link), newPassword: "lin's own password", context: fixture.context)
        _ = try await fixture.accounts.authenticate(email: "lin@example.com", password: "lin's own password", context: fixture.context)
        await #expect(throws: AccountError.invalidCredentials, "once set, the password is changed, not set by mail") {
            try await fixture.links.requestPasswordSetup(user: try #require(try await fixture.database.users.find(id: lin.id)), context: fixture.context)
        }
        let kim = try await fixture.accounts.createByOperator(email: "kim@example.com", password: nil, displayName: nil, verified: true)
        for _ in 0..<5 { #expect(try await fixture.links.requestPasswordSetup(user: kim, context: fixture.context)) }
        #expect(try await fixture.links.requestPasswordSetup(user: kim, context: fixture.context) == false, "a per-account mail limit")
    }

    /// Words each mail with the kind as its subject and keeps the language it was asked for.
    struct LanguageEcho: MailWording {
        func message(_ kind: MailKind, to recipient: String, language: String?, values: [String: String]) -> MailMessage {
            MailMessage(to: recipient, subject: kind.rawValue, textBody: values["link"] ?? "", language: language)
        }
    }

    @Test(arguments: [(nil as String?, "ar"), ("de", "de")])
    func selfServiceMailsAreInTheSavedLanguageElseThePagesOne(saved: String?, expected: String) async throws {
        let fixture = try await Fixture.make()
        let links = EmailLinks(users: fixture.database.users, oneTimeTokens: fixture.database.oneTimeTokens,
                               passkeys: fixture.database.webAuthnCredentials, rateLimits: fixture.database.rateLimits,
                               mailer: fixture.mails, accounts: fixture.accounts,
                               audit: AuditTrail(store: fixture.database.auditLog), clock: fixture.clock.identity,
                               absoluteURL: { "https://id.example.test" + $0 }, wording: LanguageEcho())
        var ada = fixture.ada
        ada.language = saved
        #expect(try await links.requestEmailChange(user: ada, to: "ada@elsewhere.example", context: fixture.context, language: "ar") == .sent)
        #expect(await fixture.mails.to("ada@elsewhere.example").map(\.language) == [expected])
        #expect(await fixture.mails.to("ada@example.com").map(\.language) == [expected], "the notice to the old address too")
        var lin = try await fixture.accounts.createByOperator(email: "lin@example.com", password: nil, displayName: nil, verified: true)
        lin.language = saved
        #expect(try await links.requestPasswordSetup(user: lin, context: fixture.context, language: "ar"))
        #expect(await fixture.mails.to("lin@example.com").map(\.language) == [expected])
    }

    @Test func theExportHoldsTheAccountsDataAndNoSecret() async throws {
        let fixture = try await Fixture.make()
        let issued = try await fixture.sessions.start(userId: fixture.ada.id, methods: ["pwd"], context: fixture.context)
        _ = try await fixture.accounts.changeName(userId: fixture.ada.id, to: "Ada", context: fixture.context)
        let bytes = try await AccountDataExport(stores: .init(fixture.database), audit: AuditTrail(store: fixture.database.auditLog),
                                                clock: fixture.clock.identity).export(userId: fixture.ada.id, context: fixture.context)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let profile = try #require(object["profile"] as? [String: Any])
        #expect(profile["email"] as? String == "ada@example.com" && profile["name"] as? String == "Ada" && profile["has_password"] as? Bool == true)
        #expect((object["sessions"] as? [[String: Any]])?.first?["user_agent"] as? String == "Test")
        #expect((object["consents"] as? [[String: Any]]) != nil && (object["identities"] as? [[String: Any]]) != nil)
        let audit = try #require(object["audit"] as? [[String: Any]])
        #expect(audit.contains { $0["type"] as? String == "account.updated" })
        let text = String(decoding: bytes, as: UTF8.self)
        let hash = try #require(try await fixture.database.users.find(id: fixture.ada.id)?.passwordHash)
        for secret in [hash, issued.token, SessionService.hash(issued.token).hex, "$argon2"] {
            #expect(!text.contains(secret), "the export holds no secret")
        }
        #expect(try await fixture.database.auditLog.list(userId: fixture.ada.id, limit: 5).first?.event.type == "account.exported")
    }
}
