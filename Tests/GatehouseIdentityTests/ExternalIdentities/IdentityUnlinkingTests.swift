import Foundation
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// The one unlink behind the account page and the admin API, as a table: each case names the account's
/// ways in, the identity to unlink and who asks, and the one outcome, the identities left and the audit
/// entry it expects.
@Suite struct IdentityUnlinkingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// `u1`'s password (nil: provider-only) and linked identities (provider, subject).
        var password: String? = nil
        let linked: [(String, String)]
        /// The identity to unlink, and whose account it is asked of.
        let target: (String, String)
        var userId = "u1"
        var actor: String? = nil
        let expected: IdentityUnlinking.Outcome
        /// The identities `u1` keeps.
        let remaining: [String]
        var testDescription: String { "\(name) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(name: "one of two providers", linked: [("apple", "a1"), ("google", "g1")], target: ("google", "g1"),
             expected: .unlinked, remaining: ["apple"]),
        Case(name: "the only provider beside a password", password: "hash", linked: [("apple", "a1")], target: ("apple", "a1"),
             expected: .unlinked, remaining: []),
        Case(name: "the last way in", linked: [("apple", "a1")], target: ("apple", "a1"),
             expected: .lastMethod, remaining: ["apple"]),
        Case(name: "another account's identity", linked: [("apple", "a1"), ("google", "g1")], target: ("github", "x9"),
             expected: .notLinked, remaining: ["apple", "google"]),
        Case(name: "asked of another account", linked: [("apple", "a1"), ("google", "g1")], target: ("google", "g1"), userId: "u2",
             expected: .notLinked, remaining: ["apple", "google"]),
        Case(name: "by an administrator", linked: [("apple", "a1"), ("google", "g1")], target: ("apple", "a1"), actor: "admin:ops",
             expected: .unlinked, remaining: ["google"]),
    ]

    @Test(arguments: cases)
    func unlink(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let now = Date()
        for id in ["u1", "u2"] {
            try await database.users.create(User(id: id, email: "\(id)@example.test", displayName: nil,
                                                 passwordHash: id == "u1" ? item.password : "hash", emailVerified: true,
                                                 disabled: false, createdAt: now, updatedAt: now))
        }
        for (provider, subject) in item.linked {
            try await database.externalIdentities.create(ExternalIdentity(provider: provider, subject: subject, userId: "u1", createdAt: now))
        }
        try await database.externalIdentities.create(ExternalIdentity(provider: "github", subject: "x9", userId: "u2", createdAt: now))
        let unlinking = IdentityUnlinking(identities: database.externalIdentities, audit: AuditTrail(store: database.auditLog), revocations: nil)

        let outcome = try await unlinking.unlink(userId: item.userId, provider: item.target.0, subject: item.target.1, by: item.actor,
                                                 context: ClientContext(ip: "192.0.2.1", userAgent: "unlink-tests"))

        #expect(outcome == item.expected)
        #expect(try await database.externalIdentities.list(userId: "u1").map(\.provider).sorted() == item.remaining)
        let audited = try await database.auditLog.list(userId: item.userId, limit: 10)
            .filter { $0.event.type == AuditEventType.identityUnlinked.rawValue }
        #expect(audited.count == (item.expected == .unlinked ? 1 : 0))
        if let actor = item.actor, let entry = audited.first { #expect(entry.event.details.contains(actor)) }
        await database.close()
    }
}
