import Foundation
import GatehouseStore
import Testing

/// The admin API's "email contains" search, answered from trigrams (SQLite's FTS5 table, PostgreSQL's
/// `pg_trgm` index) for three characters or more and by the creation-order walk below that.
@Suite("UserSearchStore conformance")
struct UserSearchStoreTests {
    static let emails = ["alice@example.test", "bob_smith@example.test", "carol%x@example.test", "dave\\y@example.test",
                         "bobxsmith@example.test", "Érika@exemple.test"]

    /// The ids of every match, page after page of `limit`.
    static func ids(_ db: any GatehouseDatabase, _ query: String?, limit: Int = 1000) async throws -> [String] {
        var ids: [String] = [], cursor: String?
        repeat {
            let page = try await db.userSearch.search(emailContaining: query, after: cursor, limit: limit)
            ids += page.items.map(\.id)
            cursor = page.nextCursor
            if ids.count > 10_000 { break }
        } while cursor != nil
        return ids
    }

    static func seed(_ db: any GatehouseDatabase) async throws {
        for (index, email) in emails.enumerated() {
            try await db.users.create(.fixture("u\(index)", email: email.lowercased(), created: Double(index)))
        }
    }

    @Test(arguments: StoreBackends.all)
    func substringsMatchAnywhereWhateverTheCase(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await Self.seed(db)
            #expect(try await Self.ids(db, "ALICE") == ["u0"])
            #expect(try await Self.ids(db, "lice@ex") == ["u0"])
            #expect(try await Self.ids(db, "smith@") == ["u1", "u4"])
            #expect(try await Self.ids(db, "@example.test") == ["u0", "u1", "u2", "u3", "u4"])
            #expect(try await Self.ids(db, "ÉRIKA@") == ["u5"])
            #expect(try await Self.ids(db, "nobody") == [])
            // Below three characters no trigram helps: the same answers from the walk.
            #expect(try await Self.ids(db, "ob") == ["u1", "u4"])
            #expect(try await Self.ids(db, "i") == ["u0", "u1", "u4", "u5"])
            #expect(try await Self.ids(db, "zq") == [])
            #expect(try await Self.ids(db, nil) == ["u0", "u1", "u2", "u3", "u4", "u5"])
            #expect(try await Self.ids(db, "") == ["u0", "u1", "u2", "u3", "u4", "u5"])
        }
    }

    @Test(arguments: StoreBackends.all)
    func likeMetacharactersAreLiteral(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await Self.seed(db)
            #expect(try await Self.ids(db, "b_smith") == ["u1"], "_ is not any character")
            #expect(try await Self.ids(db, "_") == ["u1"])
            #expect(try await Self.ids(db, "l%x") == ["u2"], "% is not any run")
            #expect(try await Self.ids(db, "%") == ["u2"])
            #expect(try await Self.ids(db, "e\\y@") == ["u3"])
            #expect(try await Self.ids(db, "\\") == ["u3"])
            #expect(try await Self.ids(db, "\"") == [])
            #expect(try await Self.ids(db, "a\"b OR c") == [], "quotes cannot break out of the phrase")
        }
    }

    @Test(arguments: StoreBackends.all)
    func cursorPagesWalkTheMatchesInCreationOrder(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            // Created out of id order, two at the same instant, so the order is (created_at, id).
            for number in 0..<30 {
                let email = number % 3 == 0 ? "match\(number)@needle.test" : "other\(number)@hay.test"
                try await db.users.create(.fixture("id\(29 - number)", email: email, created: Double(number / 2)))
            }
            let expected = (0..<30).filter { $0 % 3 == 0 }.map { "id\(29 - $0)" }.sorted { a, b in
                let (ka, kb) = (Int(a.dropFirst(2))!, Int(b.dropFirst(2))!)
                return ((29 - ka) / 2, a) < ((29 - kb) / 2, b)
            }
            #expect(try await Self.ids(db, "needle", limit: 3) == expected)
            #expect(try await Self.ids(db, "needle", limit: 1000) == expected)
            #expect(try await Self.ids(db, "@needle.t", limit: 4) == expected)
            let first = try await db.userSearch.search(emailContaining: "needle", after: nil, limit: 10)
            #expect(first.items.count == 10 && first.nextCursor == nil, "the last page has no cursor")
            let all = try await Self.ids(db, nil, limit: 7)
            #expect(all.count == 30 && Set(all).count == 30)
            await expectStoreError(.invalidArgument) { _ = try await db.userSearch.search(emailContaining: "needle", after: "x", limit: 5) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func theIndexFollowsNewRenamedAndDeletedAccounts(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await Self.seed(db)
            try await db.users.create(.fixture("late", email: "latecomer@example.test", created: 100))
            #expect(try await Self.ids(db, "latecomer") == ["late"])
            _ = try await db.users.update(id: "u0", [.email("alicia@renamed.test")], at: TestTime.at(200))
            #expect(try await Self.ids(db, "alice") == [], "the old address no longer matches")
            #expect(try await Self.ids(db, "alicia@ren") == ["u0"])
            _ = try await db.users.update(id: "u0", [.displayName("Alice")], at: TestTime.at(201))
            #expect(try await Self.ids(db, "alicia@ren") == ["u0"], "a change that keeps the email keeps its entry")
            #expect(try await db.users.delete(id: "u1"))
            #expect(try await Self.ids(db, "smith") == ["u4"])
            // The address of a deleted account, taken again by another.
            try await db.users.create(.fixture("again", email: "bob_smith@example.test", created: 300))
            #expect(try await Self.ids(db, "bob_smith") == ["again"])
            #expect(try await Self.ids(db, "example.test") == ["u2", "u3", "u4", "late", "again"])
        }
    }

    /// Past `EmailTrigramQuery.sampleRows` accounts sharing a domain, the domain's trigrams are common: a pasted
    /// address is answered from its other stretches, and a query of common trigrams alone still finds its matches.
    @Test(arguments: StoreBackends.all)
    func queriesWithCommonTrigramsFindExactlyTheirMatches(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            for number in 0..<300 {
                try await db.users.create(.fixture("c\(number)", email: "member\(number)@shared-domain.test", created: Double(number)))
            }
            try await db.users.create(.fixture("x", email: "xmember150@shared-domain.test.other", created: 400))
            #expect(try await Self.ids(db, "member150@shared-domain.test") == ["c150", "x"])
            #expect(try await Self.ids(db, "MEMBER150@") == ["c150", "x"])
            #expect(try await Self.ids(db, "r150@shared-domain.test.") == ["x"])
            #expect(try await Self.ids(db, "member15") == ["c15"] + (150..<160).map { "c\($0)" } + ["x"])
            #expect(try await Self.ids(db, "@shared-domain.test").count == 301, "common trigrams only: the walk")
            #expect(try await Self.ids(db, "shared-domain.test.oth") == ["x"], "common stretches, one match")
            #expect(try await Self.ids(db, "member300@shared-domain.test") == [])
        }
    }
}
