import Foundation
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// What the registered clients allow (CORS origins, discovery's grant types), as a table: a case registers
/// clients, reads, registers another after some seconds and names what the second read answers.
@Suite struct WebOriginCacheTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Seconds between the first read and the second.
        let after: TimeInterval
        let origins: Set<String>
        let grants: Set<String>
        var testDescription: String { name }
    }

    static let first: Set<String> = ["https://app.example"]
    static let cases: [Case] = [
        Case(name: "within the 30 s a read is kept, a new client is not seen yet", after: 29,
             origins: first, grants: ["authorization_code", "refresh_token"]),
        Case(name: "after 30 s the clients are read again", after: 30,
             origins: first.union(["https://spa.example"]), grants: ["authorization_code", "refresh_token", "client_credentials"]),
    ]

    @Test(arguments: cases)
    func reads(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let clock = ManualClock()
        try await database.oauthClients.create(OAuthClient(id: "web", name: "Web", kind: .confidential, redirectURIs: ["https://app.example/cb"],
                                                           webOrigins: ["https://app.example"], createdAt: clock.now))
        let cache = WebOriginCache(store: database.oauthClients, clock: clock.identity)
        #expect(await cache.origins() == Self.first)
        try await database.oauthClients.create(OAuthClient(id: "spa", name: "SPA", kind: .public, redirectURIs: ["https://spa.example/cb"],
                                                           grantTypes: ["client_credentials"], webOrigins: ["https://spa.example"],
                                                           createdAt: clock.now))
        clock.advance(item.after)
        #expect(await cache.origins() == item.origins)
        #expect(await cache.grantTypes() == item.grants)
    }

    @Test func aFailingStoreAllowsNoOrigin() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        try await database.oauthClients.create(OAuthClient(id: "web", name: "Web", kind: .confidential,
                                                           webOrigins: ["https://app.example"], createdAt: Date()))
        await database.close()
        let cache = WebOriginCache(store: database.oauthClients)
        #expect(await cache.origins().isEmpty)
        #expect(await cache.grantTypes().isEmpty)
    }
}
