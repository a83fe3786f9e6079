import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

/// `gatehouse audit` filters by event, IP and time, not only by account.
@Suite(.serialized) struct AuditCommandTests {
    @Test func auditFiltersByEventIPAndTime() async throws {
        let url = CommandLineTests.temporaryDatabaseURL()
        let database = try await SQLiteDatabase.open(url: url)
        _ = try await database.migrate()
        let now = Date()
        for (age, type, ip) in [(7200.0, "sign_in.failed", "192.0.2.5"), (60, "sign_in.failed", "192.0.2.5"),
                                (30, "sign_in.failed", "198.51.100.1"), (20, "sign_in.rate_limited", "192.0.2.5"),
                                (10, "sign_up", "192.0.2.5")] {
            try await database.auditLog.append(AuditEvent(occurredAt: now.addingTimeInterval(-age), type: type, ip: ip,
                                                          details: #"{"reason":"wrong_password"}"#))
        }
        await database.close()
        let env = ["GATEHOUSE_DATABASE_URL": url]
        let failed = try await CommandLineTests.run(["audit", "--event", "sign_in.*", "--ip", "192.0.2.5", "--since", "1h"], environment: env)
        #expect(failed.status == 0, "\(failed.stderr)")
        let lines = failed.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(failed.stdout)")
        #expect(lines.first?.contains("sign_in.rate_limited") == true && lines.last?.contains("sign_in.failed") == true)
        #expect(lines.allSatisfy { $0.contains("192.0.2.5") && $0.contains("wrong_password") })
        let all = try await CommandLineTests.run(["audit", "--event", "sign_in.failed"], environment: env)
        #expect(all.stdout.split(separator: "\n").count == 3)
        for bad in [["--ip", "not-an-ip"], ["--since", "yesterday"], ["--event", "nope.*"], ["--limit", "0"]] {
            let refused = try await CommandLineTests.run(["audit"] + bad, environment: env)
            #expect(refused.status == 2, "\(bad): \(refused.stderr)")
        }
    }
}
