import Foundation
import GatehouseIdentity
import GatehouseStore
import Synchronization
import Testing

/// Plays a second process that creates the client between this process's lookup and its insert.
private final class RacingStore: OAuthClientStore {
    let inner: any OAuthClientStore
    let other: OAuthClient
    let raced = Mutex(false)

    init(inner: any OAuthClientStore, other: OAuthClient) { self.inner = inner; self.other = other }

    func create(_ client: OAuthClient) async throws {
        if !raced.withLock({ was in defer { was = true }; return was }) {
            try await inner.create(other)   // the other process wins the insert
        }
        try await inner.create(client)
    }
    func find(id: String) async throws -> OAuthClient? { try await inner.find(id: id) }
    func list() async throws -> [OAuthClient] { try await inner.list() }
    func update(_ client: OAuthClient) async throws { try await inner.update(client) }
    func delete(id: String) async throws -> Bool { try await inner.delete(id: id) }
}

@Suite struct ConfiguredClientRaceTests {
    @Test func twoProcessesApplyingTheSameConfiguredClientBothStart() async throws {
        let database = try await SigningKeyRingTests.database()
        let registration = ClientRegistration(id: "web", name: "Web", kind: .confidential, redirectURIs: ["https://app.example/cb"],
                                              grantTypes: ["authorization_code", "refresh_token"], scopes: ["openid"])
        let stale = OAuthClient(id: "web", name: "Old name", kind: .confidential, secretHash: "00", redirectURIs: ["https://app.example/cb"],
                                grantTypes: ["authorization_code"], scopes: ["openid"], createdAt: Date(timeIntervalSince1970: 0))
        let registry = ClientRegistry(store: RacingStore(inner: database.oauthClients, other: stale))
        try await registry.apply(registration, secret: "s3cret-value")
        let stored = try #require(try await database.oauthClients.find(id: "web"))
        #expect(stored.name == "Web", "the losing process converges the row on the configuration")
        #expect(stored.grantTypes == ["authorization_code", "refresh_token"])

        // And truly concurrently, many at once: none fails.
        let shared = ClientRegistry(store: database.oauthClients)
        let other = ClientRegistration(id: "app", name: "App", kind: .public, redirectURIs: ["com.example.app:/cb"],
                                       grantTypes: ["authorization_code"], scopes: ["openid"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { try await shared.apply(other, secret: nil) } }
            try await group.waitForAll()
        }
        #expect(try await database.oauthClients.find(id: "app")?.name == "App")
    }
}
