import Foundation
import GatehouseStore
import Testing

@Suite("OAuthClientStore conformance")
struct OAuthClientStoreTests {
    @Test(arguments: StoreBackends.all)
    func createFindAndListRoundTrip(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let full = OAuthClient.fixture("web")
            // A public client with empty lists, a nil secret and Unicode, to check the JSON columns.
            let bare = OAuthClient(id: "app", name: "Ünïcode “app” / \\ \"quoted\"", kind: .public, redirectURIs: [],
                                   grantTypes: ["authorization_code"], scopes: ["a b", "ç/é", ""], allowLocalhost: true,
                                   createdAt: TestTime.at(5), updatedAt: TestTime.at(6))
            try await db.oauthClients.create(full)
            try await db.oauthClients.create(bare)
            #expect(try await db.oauthClients.find(id: "web") == full)
            #expect(try await db.oauthClients.find(id: "app") == bare)
            #expect(try await db.oauthClients.find(id: "missing") == nil)
            #expect(try await db.oauthClients.list() == [bare, full])  // ordered by id
        }
    }

    @Test(arguments: StoreBackends.all)
    func duplicateIdIsAConflict(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.oauthClients.create(.fixture("c1"))
            var other = OAuthClient.fixture("c1")
            other.name = "Another"
            await expectStoreError(.conflict) { try await db.oauthClients.create(other) }
            #expect(try await db.oauthClients.find(id: "c1")?.name == "Client c1")
        }
    }

    @Test(arguments: StoreBackends.all)
    func updateReplacesTheClient(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await db.oauthClients.create(.fixture("c1"))
            var changed = OAuthClient.fixture("c1")
            changed.name = "Renamed"
            changed.kind = .public
            changed.secretHash = nil
            changed.redirectURIs = ["http://127.0.0.1/cb"]
            changed.postLogoutRedirectURIs = []
            changed.grantTypes = ["authorization_code"]
            changed.scopes = []
            changed.firstParty = false
            changed.allowLocalhost = true
            changed.webOrigins = []
            changed.metadata = "{}"
            changed.updatedAt = TestTime.at(100)
            try await db.oauthClients.update(changed)
            #expect(try await db.oauthClients.find(id: "c1") == changed)
            await expectStoreError(.notFound) { try await db.oauthClients.update(.fixture("missing")) }
            #expect(try await db.oauthClients.find(id: "missing") == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func deleteCascadesToCodesTokensAndConsents(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            try await db.authorizationCodes.create(.fixture("code1", clientId: "c1"))
            try await db.authorizationCodes.create(.fixture("code2", clientId: "c2"))
            try await db.refreshTokens.create(.fixture("rt1", family: "f1", clientId: "c1"))
            try await db.refreshTokens.create(.fixture("rt2", family: "f2", clientId: "c2"))
            try await db.consents.save(Consent(userId: "u1", clientId: "c1", scopes: ["profile"], grantedAt: TestTime.at(1)))
            try await db.consents.save(Consent(userId: "u1", clientId: "c2", scopes: ["email"], grantedAt: TestTime.at(1)))

            #expect(try await db.oauthClients.delete(id: "c1"))
            #expect(try await db.oauthClients.delete(id: "c1") == false)
            #expect(try await db.oauthClients.find(id: "c1") == nil)
            #expect(try await db.oauthClients.list().map(\.id) == ["c2"])

            #expect(try await db.authorizationCodes.redeem(hash: testHash("code1"), now: TestTime.at(1)) == .invalid)
            #expect(try await db.refreshTokens.find(hash: testHash("rt1")) == nil)
            #expect(try await db.consents.find(userId: "u1", clientId: "c1") == nil)
            // The other client's records are untouched.
            if case .redeemed = try await db.authorizationCodes.redeem(hash: testHash("code2"), now: TestTime.at(1)) {
            } else {
                Issue.record("c2's code must survive c1's deletion")
            }
            #expect(try await db.refreshTokens.find(hash: testHash("rt2")) != nil)
            #expect(try await db.consents.list(userId: "u1").map(\.clientId) == ["c2"])
        }
    }
}
