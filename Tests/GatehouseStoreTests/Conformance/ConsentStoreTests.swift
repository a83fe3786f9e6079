import Foundation
import GatehouseStore
import Testing

@Suite("ConsentStore conformance")
struct ConsentStoreTests {
    @Test(arguments: StoreBackends.all)
    func saveReplacesAndFinds(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let first = Consent(userId: "u1", clientId: "c1", scopes: ["openid", "profile"], grantedAt: TestTime.at(1))
            try await db.consents.save(first)
            #expect(try await db.consents.find(userId: "u1", clientId: "c1") == first)
            let wider = Consent(userId: "u1", clientId: "c1", scopes: ["openid", "profile", "email"],
                                grantedAt: TestTime.at(2))
            try await db.consents.save(wider)
            #expect(try await db.consents.find(userId: "u1", clientId: "c1") == wider)
            #expect(try await db.consents.find(userId: "u1", clientId: "c2") == nil)
            #expect(try await db.consents.find(userId: "u2", clientId: "c1") == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func saveForMissingUserOrClientIsNotFound(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            await expectStoreError(.notFound) {
                try await db.consents.save(Consent(userId: "ghost", clientId: "c1", scopes: [], grantedAt: TestTime.at(1)))
            }
            await expectStoreError(.notFound) {
                try await db.consents.save(Consent(userId: "u1", clientId: "ghost", scopes: [], grantedAt: TestTime.at(1)))
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func revokeAndListByClient(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.oauthClients.create(.fixture("C0"))  // bytewise order: uppercase first
            try await db.consents.save(Consent(userId: "u1", clientId: "c2", scopes: ["b"], grantedAt: TestTime.at(1)))
            try await db.consents.save(Consent(userId: "u1", clientId: "c1", scopes: [], grantedAt: TestTime.at(2)))
            try await db.consents.save(Consent(userId: "u1", clientId: "C0", scopes: ["x"], grantedAt: TestTime.at(3)))
            try await db.consents.save(Consent(userId: "u2", clientId: "c1", scopes: ["a"], grantedAt: TestTime.at(4)))
            #expect(try await db.consents.list(userId: "u1").map(\.clientId) == ["C0", "c1", "c2"])
            #expect(try await db.consents.list(userId: "u1")[1].scopes == [])
            #expect(try await db.consents.revoke(userId: "u1", clientId: "c1"))
            #expect(try await db.consents.revoke(userId: "u1", clientId: "c1") == false)
            #expect(try await db.consents.list(userId: "u1").map(\.clientId) == ["C0", "c2"])
            #expect(try await db.consents.list(userId: "u2").map(\.clientId) == ["c1"])
            #expect(try await db.consents.list(userId: "nobody").isEmpty)
        }
    }
}
