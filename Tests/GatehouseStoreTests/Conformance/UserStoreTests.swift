import Foundation
import GatehouseStore
import Testing

@Suite("UserStore conformance")
struct UserStoreTests {
    @Test(arguments: StoreBackends.all)
    func createAndFind(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User.fixture("u1")
            try await db.users.create(user)
            #expect(try await db.users.find(id: "u1") == user)
            #expect(try await db.users.find(email: "u1@example.test") == user)
            #expect(try await db.users.find(id: "nope") == nil)
            #expect(try await db.users.find(email: "U1@example.test") == nil)  // caller normalises
        }
    }

    @Test(arguments: StoreBackends.all)
    func providerOnlyUserHasNoPassword(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User(id: "apple1", email: "x@privaterelay.appleid.com", createdAt: TestTime.at(0))
            try await db.users.create(user)
            let found = try #require(try await db.users.find(id: "apple1"))
            #expect(found.passwordHash == nil)
            #expect(found.displayName == nil)
            #expect(found.emailVerified == false)
            #expect(found.disabled == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func languageAndTimeZoneAreSavedAndCleared(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            #expect(try await db.users.find(id: "u1")?.language == nil)
            let chosen = try await db.users.update(id: "u1", [.language("ar"), .timeZone("Asia/Tokyo")], at: TestTime.at(60))
            #expect(chosen.language == "ar" && chosen.timeZone == "Asia/Tokyo")
            #expect(try await db.users.find(id: "u1") == chosen)
            // One field alone: the other keeps its value.
            let cleared = try await db.users.update(id: "u1", [.timeZone(nil)], at: TestTime.at(61))
            #expect(cleared.language == "ar" && cleared.timeZone == nil)
            // A user created with a choice (a sign-up in a language) reads back with it.
            var withChoice = User.fixture("u2", email: "u2@example.test")
            withChoice.language = "ja"
            try await db.users.create(withChoice)
            #expect(try await db.users.find(email: "u2@example.test")?.language == "ja")
        }
    }

    @Test(arguments: StoreBackends.all)
    func duplicateEmailOrIdConflicts(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1", email: "same@example.test"))
            await expectStoreError(.conflict) { try await db.users.create(.fixture("u2", email: "same@example.test")) }
            await expectStoreError(.conflict) { try await db.users.create(.fixture("u1", email: "other@example.test")) }
            #expect(try await db.users.count() == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func updateChangesOnlyNamedFields(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            let updated = try await db.users.update(
                id: "u1", [.displayName(nil), .emailVerified(false), .disabled(true), .passwordHash(nil)], at: TestTime.at(60))
            #expect(updated.displayName == nil)
            #expect(updated.emailVerified == false)
            #expect(updated.disabled == true)
            #expect(updated.passwordHash == nil)
            #expect(updated.email == "u1@example.test")
            #expect(updated.createdAt == TestTime.at(0))
            #expect(updated.updatedAt == TestTime.at(60))
            #expect(try await db.users.find(id: "u1") == updated)

            let renamed = try await db.users.update(id: "u1", [.email("new@example.test"), .displayName("N")],
                                                    at: TestTime.at(61))
            #expect(renamed.email == "new@example.test")
            #expect(renamed.displayName == "N")
            #expect(try await db.users.find(email: "new@example.test")?.id == "u1")

            let touched = try await db.users.update(id: "u1", [], at: TestTime.at(62))
            #expect(touched.updatedAt == TestTime.at(62))
        }
    }

    @Test(arguments: StoreBackends.all)
    func updateFailures(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            try await db.users.create(.fixture("u2"))
            await expectStoreError(.notFound) { try await db.users.update(id: "ghost", [.disabled(true)], at: TestTime.at(1)) }
            await expectStoreError(.conflict) {
                try await db.users.update(id: "u2", [.email("u1@example.test")], at: TestTime.at(1))
            }
            #expect(try await db.users.find(id: "u2")?.email == "u2@example.test")
        }
    }

    @Test(arguments: StoreBackends.all)
    func deleteUser(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.users.create(.fixture("u1"))
            #expect(try await db.users.delete(id: "u1"))
            #expect(try await db.users.delete(id: "u1") == false)
            #expect(try await db.users.find(id: "u1") == nil)
            try await db.users.create(.fixture("u1"))  // the email is free again
        }
    }

    @Test(arguments: StoreBackends.all)
    func listPagesInCreationOrder(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            // Two users share a creation time: the id breaks the tie.
            for (index, id) in ["c", "a", "e", "b", "d"].enumerated() {
                try await db.users.create(.fixture(id, created: index == 1 ? 0 : Double(index)))
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await db.users.list(after: cursor, limit: 2)
                #expect(page.items.count <= 2)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == ["a", "c", "e", "b", "d"])
            #expect(pages == 3)
            #expect(try await db.users.count() == 5)
            #expect(try await db.users.list(after: nil, limit: 10).nextCursor == nil)
            await expectStoreError(.invalidArgument) { _ = try await db.users.list(after: "garbage", limit: 2) }
        }
    }

    @Test(arguments: StoreBackends.all)
    func emptyListing(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let page = try await db.users.list(after: nil, limit: 50)
            #expect(page.items.isEmpty)
            #expect(page.nextCursor == nil)
            #expect(try await db.users.count() == 0)
        }
    }
}
