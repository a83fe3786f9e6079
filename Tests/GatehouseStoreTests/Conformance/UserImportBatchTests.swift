import Foundation
import GatehouseStore
import Testing

/// A batch is read in a few statements and written many rows to an INSERT: each row must still see what the
/// rows before it in the same batch wrote, and a refused row must still leave nothing of its batch.
@Suite("UserImportStore batch conformance")
struct UserImportBatchTests {
    static func row(_ line: Int, _ email: String, external: String? = nil, identities: [ImportedIdentity] = []) -> ImportedUser {
        UserImportStoreTests.row(line, email, external: external, identities: identities)
    }

    @Test(arguments: StoreBackends.all)
    func aRowSeesWhatEarlierRowsOfItsBatchWrote(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let g1 = ImportedIdentity(provider: "google", subject: "g1", email: "first@example.test")
            let g1Again = ImportedIdentity(provider: "google", subject: "g1", email: "second@example.test")
            let g2 = ImportedIdentity(provider: "github", subject: "g2")
            var renamed = Self.row(2, "a2@example.test", external: "1", identities: [g1Again, g2])
            renamed.displayName = "Renamed"
            let outcomes = try await db.userImports.importBatch([
                Self.row(1, "a@example.test", external: "1", identities: [g1]),
                renamed,                                          // by external id: the account row 1 created
                Self.row(3, "b@example.test"),
                Self.row(4, "a2@example.test"),                   // by email: the address row 2 gave it
            ], at: TestTime.at(10))
            #expect(outcomes == [ImportOutcome(line: 1, userId: "new1", action: .created),
                                 ImportOutcome(line: 2, userId: "new1", action: .updated),
                                 ImportOutcome(line: 3, userId: "new3", action: .created),
                                 ImportOutcome(line: 4, userId: "new1", action: .updated)])
            #expect(try await db.users.count() == 2)
            let user = try #require(try await db.users.find(id: "new1"))
            #expect(user.email == "a2@example.test" && user.displayName == "Name 4")
            #expect(try await db.users.find(email: "a@example.test") == nil)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "g1")?.email == "second@example.test")
            #expect(try await db.externalIdentities.list(userId: "new1").map(\.provider).sorted() == ["github", "google"])
            #expect(try await db.userImports.productUserId(userId: "new1") == "1")
        }
    }

    /// A refused row in the middle: neither the rows before it (inserted or waiting) nor those after are written.
    @Test(arguments: StoreBackends.all)
    func aConflictInTheMiddleOfABatchWritesNothingOfIt(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "taken", userId: "u1",
                                                                    createdAt: TestTime.at(1)))
            let batch = (1...200).map { Self.row($0, "r\($0)@example.test", external: "x\($0)",
                                                 identities: [ImportedIdentity(provider: "google", subject: "s\($0)")]) }
            var refused = batch
            // Row 100 updates row 1's account, so rows 1–99 are inserted before it; row 151 is then refused.
            refused[99] = Self.row(100, "r1@example.test", external: "x1", identities: [ImportedIdentity(provider: "google", subject: "s1")])
            refused[150].identities.append(ImportedIdentity(provider: "apple", subject: "taken"))
            await #expect(throws: ImportRowConflict(line: 151, reason: "apple identity taken is linked to another account")) {
                _ = try await db.userImports.importBatch(refused, at: TestTime.at(10))
            }
            #expect(try await db.users.count() == 1)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "s1") == nil)
            #expect(try await db.externalIdentities.find(provider: "apple", subject: "taken")?.userId == "u1")

            // The rows without either, twice: all created, then all updated, nothing duplicated.
            let first = try await db.userImports.importBatch(batch, at: TestTime.at(11))
            #expect(first.allSatisfy { $0.action == .created } && first.map(\.line) == Array(1...200))
            let again = try await db.userImports.importBatch(batch, at: TestTime.at(12))
            #expect(again.allSatisfy { $0.action == .updated } && again.map(\.userId) == first.map(\.userId))
            #expect(try await db.users.count() == 201)
            #expect(try await db.externalIdentities.find(provider: "google", subject: "s200")?.userId == "new200")
            #expect(try await db.userImports.find(productUserId: "x137")?.email == "r137@example.test")
        }
    }

    /// A claim of an account the batch itself created drops the identity linked a row earlier, keeps the row's own.
    @Test(arguments: StoreBackends.all)
    func aClaimDropsIdentitiesLinkedEarlierInTheBatch(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let outcomes = try await db.userImports.importBatch([
                Self.row(1, "a@example.test", identities: [ImportedIdentity(provider: "google", subject: "old")]),
                Self.row(2, "a@example.test", identities: [ImportedIdentity(provider: "github", subject: "new")]),
            ], at: TestTime.at(10)) { _, _ in
                .update(ImportUpdate(emailVerified: true, verifiedByImport: true, password: .clear, dropIdentities: true))
            }
            #expect(outcomes.map(\.claimed) == [false, true])
            #expect(try await db.externalIdentities.list(userId: "new1").map(\.subject) == ["new"])
            #expect(try await db.users.find(id: "new1")?.passwordHash == nil)
        }
    }

    /// The batch's keys compare as the database's do, byte for byte: two subjects Swift's `==` calls equal
    /// (precomposed and decomposed é) are two identities, and two emails that differ only so are two accounts.
    @Test(arguments: StoreBackends.all)
    func keysCompareByteForByte(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
            let outcomes = try await db.userImports.importBatch([
                Self.row(1, "one@example.test", identities: [ImportedIdentity(provider: "oidc", subject: precomposed)]),
                Self.row(2, "two@example.test", identities: [ImportedIdentity(provider: "oidc", subject: decomposed)]),
            ], at: TestTime.at(10))
            #expect(outcomes.map(\.action) == [.created, .created])
            #expect(try await db.externalIdentities.find(provider: "oidc", subject: decomposed)?.userId == "new2")
            #expect(try await db.externalIdentities.find(provider: "oidc", subject: precomposed)?.userId == "new1")
        }
    }

    /// `matches` judges each row against the database alone, in row order; a conflict is that row's failure only.
    @Test(arguments: StoreBackends.all)
    func matchesReadsEveryRowOnItsOwn(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            _ = try await db.userImports.importBatch([Self.row(1, "a@example.test", external: "1"), Self.row(2, "b@example.test")],
                                                     at: TestTime.at(10))
            let found = try await db.userImports.matches([
                Self.row(5, "b@example.test"),
                Self.row(6, "b@example.test", external: "1"),      // the email is another account's than the id
                Self.row(7, "fresh@example.test"),
                Self.row(8, "changed@example.test", external: "1"),
                Self.row(9, "a@example.test", external: "2"),       // imported under another id
            ])
            #expect(try found[0].get()?.userId == "new2")
            #expect(throws: ImportRowConflict.self) { try found[1].get() }
            #expect(try found[2].get() == nil)
            #expect(try found[3].get()?.userId == "new1")
            #expect(throws: ImportRowConflict(line: 9, reason: "account a@example.test was imported with another external id")) {
                try found[4].get()
            }
        }
    }
}
