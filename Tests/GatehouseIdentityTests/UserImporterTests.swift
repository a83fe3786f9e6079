import Foundation
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

@Suite struct UserImporterTests {
    static let bcrypt = "$2a$04$Hsw2hdu8rSmlQnCmSSKa3.hVYWaMb8EvZNu3YI7OOOUuixwW45oya"

    static func importer(_ subjectSource: SubjectSource = .gatehouse, batchSize: Int = 500) async throws
        -> (UserImporter, any GatehouseDatabase) {
        let database = try await SigningKeyRingTests.database()
        let audit = AuditTrail(store: database.auditLog)
        return (UserImporter(imports: database.userImports, audit: audit, clock: .system, subjectSource: subjectSource, batchSize: batchSize),
                database)
    }

    @Test func everyBadRowIsReportedByLineAndNothingIsWritten() async throws {
        let (importer, database) = try await Self.importer()
        let text = """
            {"email": "ok@example.com", "password_hash": "\(Self.bcrypt)"}
            {"email": "no-at-sign"}
            not json

            {"email": "b@example.com", "password_hash": "md5:abc"}
            {"email": "c@example.com", "colour": "blue"}
            {"email": "d@example.com", "created_at": "yesterday"}
            {"email": "e@example.com", "identities": [{"provider": "apple"}]}
            """
        let report = try await importer.run(text, dryRun: false)
        #expect(report.errors.map(\.line) == [2, 3, 5, 6, 7, 8])
        #expect(report.errors[3].message == "unknown field colour")
        #expect(report.created == 0)
        #expect(try await database.users.count() == 0)
    }

    @Test func csvWithQuotesAndIdentityColumns() async throws {
        let (importer, database) = try await Self.importer(.productUserId)
        let text = "email,name,verified,created_at,external_id,provider,uid\r\n"
            + "ada@example.com,\"Lovelace, Ada \"\"AL\"\"\",t,1600000000,17,google_oauth2,1234\r\n"
            + "ada@example.com,\"Lovelace, Ada \"\"AL\"\"\",t,1600000000,17,github,99\r\n"
        let dry = try await importer.run(text, dryRun: true)
        #expect(dry.errors.isEmpty && dry.created == 2 && dry.dryRun)
        #expect(try await database.users.count() == 0)
        let report = try await importer.run(text, dryRun: false)
        #expect(report.errors.isEmpty, "\(report.errors)")
        // The second row updates the account the first created (same product user id): no duplicate.
        #expect(report.created == 1 && report.updated == 1)
        // subject_source external_id: the product's id is the Gatehouse id, so `sub` is it.
        let user = try #require(try await database.users.find(id: "17"))
        #expect(user.displayName == "Lovelace, Ada \"AL\"" && user.emailVerified)
        #expect(user.createdAt == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(try await database.externalIdentities.list(userId: "17").map(\.provider) == ["github", "google"])
    }

    @Test func aConflictingRowStopsTheImportAtItsBatch() async throws {
        let (importer, database) = try await Self.importer(batchSize: 2)
        try await database.users.create(User(id: "u1", email: "taken@example.com", createdAt: Date()))
        try await database.externalIdentities.create(ExternalIdentity(provider: "apple", subject: "s1", userId: "u1", createdAt: Date()))
        let text = """
            {"email": "one@example.com"}
            {"email": "two@example.com"}
            {"email": "three@example.com"}
            {"email": "four@example.com", "identities": [{"provider": "apple", "uid": "s1"}]}
            """
        let report = try await importer.run(text, dryRun: false)
        #expect(report.errors.map(\.line) == [4])
        // The first batch (lines 1–2) was committed, the second (3–4) rolled back whole.
        #expect(try await database.users.find(email: "two@example.com") != nil)
        #expect(try await database.users.find(email: "three@example.com") == nil)
        #expect(report.created == 2)
    }

    @Test func everyRowOfEveryBatchIsAuditedOnce() async throws {
        let (importer, database) = try await Self.importer(batchSize: 300)
        let text = (1...700).map { #"{"email": "row\#($0)@example.com", "external_id": "\#($0)"}"# }.joined(separator: "\n")
        let report = try await importer.run(text, dryRun: false)
        #expect(report.errors.isEmpty && report.created == 700)
        #expect(try await database.auditLog.count(userId: nil) == 700)
        for number in [1, 300, 301, 700] {
            let user = try #require(try await database.users.find(email: "row\(number)@example.com"))
            let entries = try await database.auditLog.list(userId: user.id, limit: 10)
            #expect(entries.map(\.event.type) == ["account.imported"] && entries[0].event.details == #"{"by":"import"}"#)
        }
        let again = try await importer.run(#"{"email": "row5@example.com", "external_id": "5", "name": "Five"}"#, dryRun: false)
        #expect(again.updated == 1)
        let five = try #require(try await database.users.find(email: "row5@example.com"))
        #expect(try await database.auditLog.list(userId: five.id, limit: 10).map(\.event.type) == ["account.updated", "account.imported"])
    }

    /// Batches of 3 over 8 rows (the last one partial), with a row updating an account of the batch before it and
    /// one its own batch created: every row counted and audited once, whatever batch it fell in.
    @Test func batchBoundariesLoseNoRow() async throws {
        let (importer, database) = try await Self.importer(batchSize: 3)
        var lines = (1...7).map { #"{"email": "row\#($0)@example.com", "external_id": "\#($0)", "uid": "g\#($0)", "provider": "google"}"# }
        lines.append(#"{"email": "row2-new@example.com", "external_id": "2", "name": "Two"}"#)   // batch 3 onto batch 1's account
        lines.insert(#"{"email": "row4@example.com", "external_id": "4", "name": "Four"}"#, at: 5) // batch 2 onto its own
        let report = try await importer.run(lines.joined(separator: "\n"), dryRun: false)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.created == 7 && report.updated == 2)
        #expect(try await database.users.count() == 7)
        #expect(try await database.auditLog.count(userId: nil) == 9)
        #expect(try await database.users.find(email: "row2-new@example.com")?.displayName == "Two")
        #expect(try await database.users.find(email: "row4@example.com")?.displayName == "Four")
        let seven = try #require(try await database.users.find(email: "row7@example.com"))
        #expect(try await database.externalIdentities.list(userId: seven.id).map(\.subject) == ["g7"])
        // A re-run updates every row and creates nothing.
        let again = try await importer.run(lines.joined(separator: "\n"), dryRun: false)
        #expect(again.errors.isEmpty && again.created == 0 && again.updated == 9)
        #expect(try await database.users.count() == 7)
    }

    /// A malformed line in the middle of what would be a batch: reported by its line, and no row of any batch is written.
    @Test func aMalformedRowInABatchWritesNothing() async throws {
        let (importer, database) = try await Self.importer(batchSize: 4)
        var lines = (1...10).map { #"{"email": "row\#($0)@example.com"}"# }
        lines[5] = #"{"email": "row6@example.com", "verified": "perhaps"}"#
        lines[6] = #"{"email": "row7@example.com""#
        let report = try await importer.run(lines.joined(separator: "\n"), dryRun: false)
        #expect(report.errors == [ImportRowError(line: 6, message: "verified must be true or false"),
                                  ImportRowError(line: 7, message: "not a JSON object")])
        #expect(report.created == 0 && report.updated == 0)
        #expect(try await database.users.count() == 0)
        #expect(try await database.auditLog.count(userId: nil) == 0)
    }

    @Test func conflictsFoundBeforeWritingAreReportedInLineOrderAcrossReadChunks() async throws {
        let (importer, database) = try await Self.importer()
        // Accounts created in Gatehouse: a row onto one is a conflict without merge_existing.
        for number in [3, 300] {
            try await database.users.create(User(id: "g\(number)", email: "row\(number)@example.com", createdAt: Date()))
        }
        let text = (1...400).map { #"{"email": "row\#($0)@example.com"}"# }.joined(separator: "\n")
        let report = try await importer.run(text, dryRun: false)
        #expect(report.errors.map(\.line) == [3, 300])
        #expect(report.created == 0)
        #expect(try await database.users.count() == 2)
    }
}
