import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Synchronization
import Testing

/// Mail kept in memory, for reading links the way the address's owner would.
final class MailInbox: Mailer {
    let sent = Mutex<[MailMessage]>([])
    func send(_ message: MailMessage) async throws { sent.withLock { $0.append(message) } }

    /// The first link containing `fragment` in the newest mail to `address`, waiting up to ~2 s (mail goes out in the background).
    func link(to address: String, containing fragment: String) async -> String? {
        for _ in 0..<200 {
            let found = sent.withLock { $0 }.last { $0.to == address && $0.textBody.contains(fragment) }
            if let found {
                return found.textBody.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.contains(fragment) }
                    .map { ProviderHarness.path($0) }
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// The form with `action` on a rendered page, as a browser submits it: every named input in tree order
/// (hidden or not, with the value the page gave it, or `overrides`), then the clicked submitter's name=value.
/// `occurrence` picks among several forms with the same action (0: the first in the page).
func renderedForm(_ html: String, action: String, occurrence: Int = 0, overrides: [String: String] = [:]) -> [(String, String)]? {
    var searched = html.startIndex..<html.endIndex
    var found: Range<String.Index>?
    for _ in 0...occurrence {
        guard let next = html.range(of: #"action="\#(action)""#, range: searched) else { return nil }
        found = next
        searched = next.upperBound..<html.endIndex
    }
    guard let open = found else { return nil }
    guard let formStart = html[..<open.lowerBound].range(of: "<form", options: .backwards),
          let formEnd = html[open.upperBound...].range(of: "</form>") else { return nil }
    let form = String(html[formStart.lowerBound..<formEnd.lowerBound])
    var fields: [(String, String)] = []
    var rest = form[...]
    while let tag = rest.range(of: #"<(input|button)\b[^>]*>"#, options: .regularExpression) {
        let element = String(rest[tag])
        func attribute(_ name: String) -> String? {
            guard let range = element.range(of: #"\b\#(name)="([^"]*)""#, options: .regularExpression) else { return nil }
            let raw = element[range].dropFirst(name.count + 2).dropLast()
            return HTMLForm.unescape(String(raw))
        }
        if let name = attribute("name") {
            if element.hasPrefix("<button") { fields.append((name, attribute("value") ?? "")) }
            else { fields.append((name, overrides[name] ?? attribute("value") ?? "")) }
        }
        rest = rest[tag.upperBound...]
    }
    for (name, value) in overrides where !fields.contains(where: { $0.0 == name }) { fields.append((name, value)) }
    return fields
}

/// Accounts taken over in advance (someone signs up with another person's address).
@Suite struct AccountTakeoverAttackTests {
    static let password = "attacker password 123"

    /// The attacker signs up with the victim's address (never verified) and signs in.
    static func attackerAccount(_ harness: ProviderHarness, email: String = "ada@example.com") async throws -> BrowserLikeClient {
        let attacker = harness.browser()
        let signUp = try await attacker.submit("/sign-up", to: "/sign-up", [("email", email), ("password", password)])
        #expect(signUp.status == 303)
        let signIn = try await attacker.submit("/sign-in", to: "/sign-in", [("email", email), ("password", password)])
        #expect(signIn.status == 303)
        return attacker
    }

    /// Item 2: an unverified account cannot link a provider identity (old code: linked, and the link survived the owner's reset).
    @Test func unverifiedAccountCannotLinkAProvider() async throws {
        let harness = try await ProviderHarness.make()
        let attacker = try await Self.attackerAccount(harness)
        let (_, final) = try await harness.signIn("github", with: attacker, email: "mallory@example.com", link: true)
        #expect(final.status == 403)
        #expect(final.text.contains("Confirm your email address"))
        #expect(try await harness.identities(email: "ada@example.com").isEmpty)
    }

    /// Item 2: with `link_verified_emails`, the victim's first Google sign-in is not merged into the
    /// attacker's pre-created (unverified) account (old code: merged, so the attacker shared it).
    @Test func automaticLinkNeverMergesIntoAnUnverifiedAccount() async throws {
        let harness = try await ProviderHarness.make { $0.providers.linkVerifiedEmails = true }
        _ = try await Self.attackerAccount(harness)
        let victim = harness.browser()
        let (_, final) = try await harness.signIn("google", with: victim, email: "ada@example.com")
        #expect(final.status == 409)
        #expect(final.text.contains("never confirmed"))
        #expect(try await harness.identities(email: "ada@example.com").isEmpty)
        #expect(try await victim.get("/account").status == 303, "the victim is not signed into the attacker's account")
    }

    /// The positive case: a verified account does take the automatic link from a provider trusted for email.
    @Test func automaticLinkIntoAVerifiedAccountStillWorks() async throws {
        let harness = try await ProviderHarness.make { $0.providers.linkVerifiedEmails = true }
        _ = try await Self.attackerAccount(harness)
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        try await harness.database.users.update(id: user.id, [.emailVerified(true)], at: harness.clock.now)
        let (_, final) = try await harness.signIn("google", with: harness.browser(), email: "ada@example.com")
        #expect(final.status == 303)
        #expect(try await harness.identities(email: "ada@example.com").map(\.provider) == ["google"])
    }

    /// Item 2: the owner's first proof of the address (a password reset by mail) removes what the attacker
    /// attached before it — a linked identity (written before this fix, or by any path), sessions — and audits it.
    @Test func passwordResetByMailClaimsTheAccountAndRemovesAttachments() async throws {
        let inbox = MailInbox()
        let harness = try await ProviderHarness.make(mailer: inbox)
        let attacker = try await Self.attackerAccount(harness)
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        try await harness.database.externalIdentities.create(ExternalIdentity(
            provider: "github", subject: "666", userId: user.id, email: "mallory@example.com", emailVerified: true, createdAt: harness.clock.now))
        let owner = harness.browser()
        #expect(try await owner.submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")]).status == 200)
        let link = try #require(await inbox.link(to: "ada@example.com", containing: "/password/reset/"))
        let page = try await owner.get(link)
        let fields = try #require(renderedForm(page.text, action: link, overrides: ["new_password": "the owner's own password"]))
        #expect(try await owner.post(link, fields).status == 200)
        #expect(try await harness.identities(email: "ada@example.com").isEmpty, "the attacker's identity is gone")
        #expect(try await attacker.get("/account").status == 303, "the attacker's session ended")
        let claimed = try #require(try await harness.database.users.find(email: "ada@example.com"))
        #expect(claimed.emailVerified)
        let audit = try await harness.database.auditLog.list(userId: user.id, limit: 50)
        let entry = try #require(audit.first { $0.event.type == "account.claimed" })
        #expect(entry.event.details.contains(#""identities_removed":"1""#) && entry.event.details.contains(#""via":"password_reset""#))
        // The attacker's old password is gone with the reset; the GitHub sign-in no longer reaches the account.
        let (_, viaGitHub) = try await harness.signIn("github", with: harness.browser(), email: "mallory@example.com")
        #expect(try await harness.database.users.find(email: "mallory@example.com")?.id != user.id)
        _ = viaGitHub
    }

    /// Item 2: the verification link (mailed at sign-up, opened by the owner) is a first proof too.
    @Test func verificationLinkClaimsTheAccount() async throws {
        let inbox = MailInbox()
        let harness = try await ProviderHarness.make(mailer: inbox)
        let attacker = try await Self.attackerAccount(harness)
        let user = try #require(try await harness.database.users.find(email: "ada@example.com"))
        try await harness.database.externalIdentities.create(ExternalIdentity(
            provider: "google", subject: "g-666", userId: user.id, createdAt: harness.clock.now))
        let link = try #require(await inbox.link(to: "ada@example.com", containing: "/email/verify/"))
        #expect(try await harness.browser().submit(link, to: link, []).status == 303, "confirmed (the creator's password cleared)")
        #expect(try await harness.identities(email: "ada@example.com").isEmpty)
        #expect(try await attacker.get("/account").status == 303, "sessions other than the one presenting the proof end")
    }

    /// Item 2: the policy itself (token issuance and linking ask it).
    @Test func accountStandingIsThePolicyTokenPathsAsk() throws {
        let base = User(id: "u", email: "a@example.com", emailVerified: true, createdAt: Date())
        var unverified = base; unverified.emailVerified = false
        var disabled = base; disabled.disabled = true
        #expect(AccountStanding(base) == .good && AccountStanding(unverified) == .emailUnproven && AccountStanding(disabled) == .disabled)
        #expect(throws: AccountError.emailUnverified) { try AccountStanding.requireTokenIssuance(unverified) }
        #expect(throws: AccountError.accountDisabled) { try AccountStanding.requireTokenIssuance(disabled) }
        #expect(throws: Never.self) { try AccountStanding.requireTokenIssuance(base) }
        #expect(!AccountStanding.acceptsAutomaticLink(unverified) && AccountStanding.acceptsAutomaticLink(base))
    }

    /// Item 2: only providers trusted for email may merge by email (generic OIDC only with `trusted_email: true`).
    @Test func onlyTrustedProvidersVouchForAnEmail() throws {
        var providers = ProvidersConfiguration()
        #expect(providers.trustsEmail(of: "apple") && providers.trustsEmail(of: "google") && providers.trustsEmail(of: "github"))
        #expect(!providers.trustsEmail(of: "okta"))
        providers.oidcTrustedForEmail = ["okta"]
        #expect(providers.trustsEmail(of: "okta"))
    }
}
