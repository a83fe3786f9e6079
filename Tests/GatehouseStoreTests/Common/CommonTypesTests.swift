import Foundation
import GatehouseStore
import Testing

@Suite("Store value types")
struct CommonTypesTests {
    @Test func recordIDsAreRandomBase32() {
        let ids = (0..<1000).map { _ in RecordID.random() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 26 })
        #expect(ids.allSatisfy { $0.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) } })
    }

    @Test func tokenHashHexRoundTrips() throws {
        let hash = TokenHash([0x00, 0x0f, 0xa0, 0xff])
        #expect(hash.hex == "000fa0ff")
        #expect(TokenHash(hex: "000FA0ff") == hash)
        #expect(TokenHash(hex: "abc") == nil)
        #expect(TokenHash(hex: "zz") == nil)
        #expect(TokenHash(hex: "") == nil)
    }

    @Test func storeErrorDescriptionHidesDetail() {
        let error = StoreError.conflict(detail: "UNIQUE constraint failed: users.email")
        #expect(!"\(error)".contains("users.email"))
        #expect(error.detail.contains("users.email"))
        #expect(error.kind == .conflict)
    }
}
