import Foundation
import GatehouseStore
import Testing

@Suite("RevokedAccessTokenStore conformance")
struct RevokedAccessTokenStoreTests {
    @Test(arguments: StoreBackends.all)
    func anyOfSeveralIds(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            #expect(try await db.revokedAccessTokens.isAnyRevoked([]) == false)
            #expect(try await db.revokedAccessTokens.isAnyRevoked(["a", "fid:f"]) == false)
            try await db.revokedAccessTokens.revoke(jti: "fid:f", expiresAt: TestTime.at(300))
            #expect(try await db.revokedAccessTokens.isAnyRevoked(["a", "fid:f"]))
            #expect(try await db.revokedAccessTokens.isAnyRevoked(["fid:f"]))
            #expect(try await db.revokedAccessTokens.isAnyRevoked(["a", "b"]) == false)
        }
    }

    @Test(arguments: StoreBackends.all)
    func revokeIsIdempotent(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "j1") == false)
            try await db.revokedAccessTokens.revoke(jti: "j1", expiresAt: TestTime.at(300))
            try await db.revokedAccessTokens.revoke(jti: "j1", expiresAt: TestTime.at(300))
            // A second revocation with an earlier expiry does not shorten the record.
            try await db.revokedAccessTokens.revoke(jti: "j1", expiresAt: TestTime.at(100))
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "j1"))
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "j2") == false)
            #expect(try await db.revokedAccessTokens.purgeExpired(now: TestTime.at(200), limit: 10) == 0)
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "j1"))
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeRemovesOnlyExpiredInBatches(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            for index in 0..<3 { try await db.revokedAccessTokens.revoke(jti: "old\(index)", expiresAt: TestTime.at(60)) }
            try await db.revokedAccessTokens.revoke(jti: "new", expiresAt: TestTime.at(600))
            #expect(try await db.revokedAccessTokens.purgeExpired(now: TestTime.at(60), limit: 2) == 2)
            #expect(try await db.revokedAccessTokens.purgeExpired(now: TestTime.at(60), limit: 2) == 1)
            #expect(try await db.revokedAccessTokens.purgeExpired(now: TestTime.at(60), limit: 2) == 0)
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "old0") == false)
            #expect(try await db.revokedAccessTokens.isRevoked(jti: "new"))
        }
    }
}
