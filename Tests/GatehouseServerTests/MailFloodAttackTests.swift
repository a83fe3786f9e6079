import Foundation
import GatehouseTesting
import Testing

/// Sign-ups with a taken address mail its owner "you already have an account"; racing many of them (from many
/// addresses, so the per-IP sign-up limit does not stop them) must not flood that inbox.
@Suite struct MailFloodAttackTests {
    @Test func signUpsWithATakenAddressDoNotFloodItsOwner() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        func notes() -> Int { gatehouse.mailer.sent.all.filter { $0.to == "ada@example.com" && $0.subject == "You already have an account" }.count }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await gatehouse.browser(ip: "203.0.113.\(index)").submit("/sign-up", to: "/sign-up", [
                        ("email", "ada@example.com"), ("password", "another password \(index)"), ("name", "")]).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 303 }, "the page answers the same every time")
        // Mail goes out in the background; the suppressed ones are audited, so wait for all 20 to be decided.
        for _ in 0..<200 where try await gatehouse.auditTypes(email: "ada@example.com").filter({ $0 == "mail.suppressed" }).count < 19 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").filter { $0 == "mail.suppressed" }.count == 19)
        _ = await gatehouse.mailer.link(to: "ada@example.com", containing: "/sign-in")
        #expect(notes() == 1)
        // Every attempt counts, sent or not: the flood filled the day's allowance too, so the owner hears of it
        // again the next day, not every hour while it goes on.
        gatehouse.clock.advance(3601)
        _ = try await gatehouse.browser(ip: "198.51.100.1").submit("/sign-up", to: "/sign-up", [("email", "ada@example.com"), ("password", "yet another password")])
        #expect(try await gatehouse.auditTypes(email: "ada@example.com").filter { $0 == "mail.suppressed" }.count == 20)
        gatehouse.clock.advance(86_401)
        _ = try await gatehouse.browser(ip: "198.51.100.2").submit("/sign-up", to: "/sign-up", [("email", "ada@example.com"), ("password", "yet another password")])
        for _ in 0..<200 where notes() < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(notes() == 2, "a day later the owner hears of it again")
    }
}
