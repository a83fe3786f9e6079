import Foundation
import GatehouseStore
import Testing

extension UserImportStore {
    /// Every match written as the row says (the store's own mechanics, without the identity layer's rules).
    func importBatch(_ batch: [ImportedUser], at: Date) async throws -> [ImportOutcome] {
        try await importBatch(batch, at: at) { row, _ in
            .update(ImportUpdate(emailVerified: row.emailVerified, verifiedByImport: row.emailVerified,
                                 password: row.passwordHash.map { .set($0) } ?? .keep))
        }
    }
}

@Suite("UserImportStore conformance")
struct UserImportStoreTests {
    static let bcrypt = "$2a$04$Hsw2hdu8rSmlQnCmSSKa3.hVYWaMb8EvZNu3YI7OOOUuixwW45oya"

    static func row(_ line: Int, _ email: String, external: String? = nil, hash: String? = bcrypt,
                    identities: [ImportedIdentity] = [], newId: String? = nil) -> ImportedUser {
        ImportedUser(line: line, email: email, displayName: "Name \(line)", emailVerified: true, createdAt: TestTime.at(5),
                     passwordHash: hash, productUserId: external, identities: identities, newId: newId ?? "new\(line)")
    }

    @Test(arguments: StoreBackends.all)
    func createsThenUpdatesWithoutDuplicates(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let apple = ImportedIdentity(provider: "apple", subject: "001.a", email: "r@privaterelay.appleid.com")
            let first = try await db.userImports.importBatch([Self.row(1, "a@example.test", external: "42", identities: [apple]),
                                                              Self.row(2, "b@example.test")], at: TestTime.at(10))
            #expect(first == [ImportOutcome(line: 1, userId: "new1", action: .created),
                              ImportOutcome(line: 2, userId: "new2", action: .created)])
            let created = try #require(try await db.users.find(id: "new1"))
            #expect(created.passwordHash == Self.bcrypt && created.emailVerified && created.createdAt == TestTime.at(5))
            #expect(try await db.userImports.productUserId(userId: "new1") == "42")
            #expect(try await db.userImports.find(productUserId: "42")?.id == "new1")
            let identity = try #require(try await db.externalIdentities.find(provider: "apple", subject: "001.a"))
            #expect(identity.userId == "new1" && identity.isPrivateRelay)

            // Re-run: matched by product user id (the email changed) and by email; a missing hash keeps the stored one.
            var renamed = Self.row(1, "a2@example.test", external: "42", hash: nil, identities: [apple], newId: "other1")
            renamed.displayName = "Renamed"
            let second = try await db.userImports.importBatch([renamed, Self.row(2, "b@example.test", newId: "other2")],
                                                              at: TestTime.at(20))
            #expect(second.map(\.action) == [.updated, .updated] && second.map(\.userId) == ["new1", "new2"])
            let updated = try #require(try await db.users.find(id: "new1"))
            #expect(updated.email == "a2@example.test" && updated.displayName == "Renamed" && updated.passwordHash == Self.bcrypt)
            #expect(updated.updatedAt == TestTime.at(20))
            #expect(try await db.users.count() == 2)
            #expect(try await db.externalIdentities.list(userId: "new1").count == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func aConflictRollsTheWholeBatchBack(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "taken", userId: "u1",
                                                                    createdAt: TestTime.at(1)))
            let stolen = ImportedIdentity(provider: "apple", subject: "taken")
            do {
                _ = try await db.userImports.importBatch([Self.row(1, "fresh@example.test"),
                                                          Self.row(2, "other@example.test", identities: [stolen])], at: TestTime.at(10))
                Issue.record("expected a conflict")
            } catch let conflict as ImportRowConflict {
                #expect(conflict.line == 2)
            }
            // Row 1 came before the failing row, and still nothing of it was written.
            #expect(try await db.users.find(email: "fresh@example.test") == nil)
            #expect(try await db.users.count() == 1)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "taken")?.userId == "u1")

            // An email owned by one account and an product user id owned by another is refused too.
            _ = try await db.userImports.importBatch([Self.row(1, "x@example.test", external: "7")], at: TestTime.at(10))
            await #expect(throws: ImportRowConflict.self) {
                _ = try await db.userImports.importBatch([Self.row(3, "u1@example.test", external: "7")], at: TestTime.at(11))
            }
        }
    }

    /// The rules see what the account is (created here or imported, proven here or by the file), decide inside
    /// the transaction, and what they decide is written: a refusal rolls the batch back; a claim clears the
    /// password and unlinks the identities the account had, keeping the row's.
    @Test(arguments: StoreBackends.all)
    func theMergeRuleSeesTheAccountsOriginAndIsWritten(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            var squatter = User.fixture("local", email: "local@example.test")
            squatter.emailVerified = false
            try await db.users.create(squatter)
            try await db.externalIdentities.create(ExternalIdentity(provider: "github", subject: "squatter", userId: "local",
                                                                    createdAt: TestTime.at(1)))
            _ = try await db.userImports.importBatch([Self.row(1, "imp@example.test")], at: TestTime.at(2))
            let local = try #require(try await db.userImports.match(Self.row(5, "local@example.test")))
            #expect(!local.imported && !local.verifiedByImport && !local.emailVerified && local.hasPassword && local.userId == "local")
            let imported = try #require(try await db.userImports.match(Self.row(6, "imp@example.test")))
            #expect(imported.imported && imported.verifiedByImport && imported.emailVerified)
            #expect(try await db.userImports.match(Self.row(7, "nobody@example.test")) == nil)

            // A refusal anywhere writes nothing of the batch.
            await #expect(throws: ImportRowConflict(line: 2, reason: "no")) {
                _ = try await db.userImports.importBatch([Self.row(9, "new@example.test"), Self.row(2, "local@example.test")],
                                                         at: TestTime.at(3)) { _, _ in .refuse(reason: "no") }
            }
            #expect(try await db.users.find(email: "new@example.test") == nil)

            // A claim: the password is cleared, the old identity goes, the row's is linked, the account is now imported.
            let google = ImportedIdentity(provider: "google", subject: "owner")
            let outcome = try await db.userImports.importBatch([Self.row(3, "local@example.test", hash: nil, identities: [google])],
                                                               at: TestTime.at(4)) { _, _ in
                .update(ImportUpdate(emailVerified: true, verifiedByImport: true, password: .clear, dropIdentities: true))
            }
            #expect(outcome == [ImportOutcome(line: 3, userId: "local", action: .updated, claimed: true)])
            let claimed = try #require(try await db.users.find(id: "local"))
            #expect(claimed.passwordHash == nil && claimed.emailVerified)
            #expect(try await db.externalIdentities.list(userId: "local").map(\.provider) == ["google"])
            #expect(try await db.userImports.match(Self.row(3, "local@example.test"))?.imported == true)

            // A proof in Gatehouse makes the verified flag Gatehouse's own.
            _ = try await db.users.update(id: "new1", [.emailVerified(true)], at: TestTime.at(5))
            #expect(try await db.userImports.match(Self.row(1, "imp@example.test"))?.verifiedByImport == false)
        }
    }
}
