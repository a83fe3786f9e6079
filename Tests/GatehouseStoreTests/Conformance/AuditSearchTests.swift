import Foundation
import GatehouseStore
import Testing

@Suite("AuditLogStore search conformance")
struct AuditSearchTests {
    @Test(arguments: StoreBackends.all)
    func filtersCombineByUserTypeIPAndTime(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let log = db.auditLog
            let rows: [(Double, String?, String, String?)] = [
                (10, "u1", "sign_in.failed", "192.0.2.5"), (20, nil, "sign_in.failed", "192.0.2.5"),
                (30, "u2", "sign_in.failed", "198.51.100.1"), (40, "u1", "sign_in.succeeded", "192.0.2.5"),
                (50, nil, "sign_in.rate_limited", "192.0.2.5"), (60, "u1", "sign_out", nil),
            ]
            for (at, user, type, ip) in rows {
                try await log.append(AuditEvent(occurredAt: TestTime.at(at), userId: user, type: type, ip: ip, details: "{}"))
            }
            func times(_ query: AuditQuery) async throws -> [Double] {
                try await log.search(query).map { $0.event.occurredAt.timeIntervalSince(TestTime.base) }
            }
            #expect(try await times(AuditQuery()) == [60, 50, 40, 30, 20, 10], "newest first")
            #expect(try await times(AuditQuery(types: ["sign_in.failed"])) == [30, 20, 10])
            #expect(try await times(AuditQuery(types: ["sign_in.failed", "sign_in.rate_limited"], ip: "192.0.2.5")) == [50, 20, 10])
            #expect(try await times(AuditQuery(userId: "u1")) == [60, 40, 10])
            #expect(try await times(AuditQuery(ip: "192.0.2.5", since: TestTime.at(20), until: TestTime.at(50))) == [40, 20])
            #expect(try await times(AuditQuery(limit: 2)) == [60, 50])
            #expect(try await times(AuditQuery(types: ["x' OR '1'='1"])) == [], "values are bound, not spliced")
        }
    }
}
